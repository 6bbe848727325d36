// The example page's script: registers <fathom-explorer>. A documentation
// site loads the same module as dist/fathom-explorer.js.
import '../../web/src/explorer';
