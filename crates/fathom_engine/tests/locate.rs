//! "Where is the code this bug report is about?" on the `bug-reports`
//! fixture: each kind of report (a traceback, a quoted error message, a
//! dotted API path, prose) puts the file it is about first, with the
//! evidence that did it, above the tests and docs that share its words;
//! search's file ranking agrees for a report, and leaves short queries alone.

mod common;

use common::{Recorder, fixture};
use fathom_engine::{Index, LocatedFile, Options, SearchMode, SearchOptions, index_dir};

fn index() -> Index {
    index_dir(&fixture("bug-reports"), &Options::default(), &mut Recorder::new()).unwrap()
}

const TRACEBACK: &str = r#"Pricing a line with a whole-euro price crashes

Running the CLI with `shop 7:2:3` fails:

```
Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/shop/cli.py", line 13, in main
    print(order.total())
  File "/usr/lib/python3/site-packages/shop/orders.py", line 19, in total
    return sum(line_total(quantity, unit_price) for _, quantity, unit_price in self.lines)
  File "/usr/lib/python3/site-packages/shop/pricing.py", line 6, in line_total
    cents = round_cents(unit_price)
ValueError: invalid literal for int() with base 10: ''
```
"#;

const MESSAGE: &str = "Checkout refuses a code that is still valid

When I enter my code at checkout on the last day of the offer, I get
\"the discount code has expired and cannot be applied\", although the
offer runs until the end of that day. I would expect the total to be
reduced as the offer says.
";

const DOTTED: &str = "Luxembourg is taxed at the wrong rate

Calling shop.tax.vat_rate('LU') gives 17 but the rate changed last year.
Please update it, and tell me how to check it for other countries.
The invoice totals of all of our customers there are wrong too.
";

const TITLED: &str = r#"`round_cents` makes an order's total wrong

An order with lines added by `Order.add_line` gives the wrong total from
`Order.total` for a customer's order when a line has no decimal point:

```python
order = Order("ann")
order.add_line("tea", 2, "3")
order.add_line("cake", 1, "2.5")
print(order.customer, order.lines)
print(order.total())
```

The order's total should be 850 for these lines; the order's lines, their
quantities and its customer are all as added to the order.
"#;

const CODED: &str = r#"Refunds are refused before checkout

A refund is an order line with a negative quantity, which the shop's orders
allow, but the order is refused before checkout with:

```
$ shop ann 7:-1:3.50
C002 on the first line
```

An order's lines with a negative quantity should be allowed when they refund
a line of an earlier order of the same customer.
"#;

const SPELLED: &str = r#"Rounding cents makes an order's total wrong

An order with lines added by `Order.add_line` gives the wrong total from
`Order.total`:

```python
order = Order("ann")
order.add_line("tea", 2, "3")
order.add_line("cake", 1, "2.5")
print(order.total())
```
"#;

const SEPARATED: &str = r#"A price with a thousands separator cannot be priced

A line whose unit price is written with a thousands separator, "1,250.50",
fails when the line is priced: the price should become whole cents, 125050,
as a price without a thousands separator does.
"#;

const TWO_WORDS: &str = "Gift cards are taxed twice

Paying with a gift card adds the VAT to what the card pays, and the VAT is
then added again to the total of the order.
";

fn files(index: &Index, report: &str) -> Vec<String> {
    index.locate(report, 10, None).files.into_iter().map(|f| f.file).collect()
}

/// The first file is where `line_total` raised, at its line 6.
fn raised_in_line_total(first: &LocatedFile) {
    assert!(first.reasons.iter().any(|r| r == "a traceback frame, where it raised"), "{:?}", first.reasons);
    let line_total =
        first.symbols.iter().find(|s| s.symbol == "shop.pricing.line_total").expect("the raising function");
    assert!(line_total.why.iter().any(|w| w == "traceback line 6"), "{:?}", line_total.why);
}

#[test]
fn a_traceback_puts_its_frames_first_with_their_functions() {
    let index = index();
    let found = index.locate(TRACEBACK, 10, None);
    let ranked: Vec<&str> = found.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(ranked[0], "shop/pricing.py", "{ranked:?}");
    assert_eq!(found.frames, 3);
    raised_in_line_total(&found.files[0]);
    // The frames above it follow, before any test.
    let orders = ranked.iter().position(|f| *f == "shop/orders.py").unwrap();
    let tests = ranked.iter().position(|f| f.starts_with("tests/")).unwrap_or(usize::MAX);
    assert!(orders < tests, "{ranked:?}");
    assert!(found.files[orders].reasons[0].contains("one call above where it raised"));
    // The line quoted under its frame is that frame's evidence, not a phrase
    // found a second time.
    assert!(
        !found.files[orders].reasons.iter().any(|r| r.contains("unit_price in self")),
        "{:?}",
        found.files[orders].reasons
    );
}

/// The same fault as a notebook shows it.
const NOTEBOOK: &str = r#"Pricing a line with a whole-euro price crashes

```python-traceback
---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
Cell In[2], line 3
      1 order = Order("ann")
      2 order.add_line("tea", 2, "3")
----> 3 order.total()

File ~/work/shop/shop/orders.py:19, in Order.total(self)
     17 def total(self):
     18     """The order's total before discounts and tax."""
---> 19     return sum(line_total(quantity, unit_price) for _, quantity, unit_price in self.lines)

File ~/work/shop/shop/pricing.py:6, in line_total(quantity, unit_price)
      4 def line_total(quantity, unit_price):
      5     """The price of `quantity` items at `unit_price` cents each."""
----> 6     cents = round_cents(unit_price)

ValueError: invalid literal for int() with base 10: ''
```
"#;

#[test]
fn a_notebooks_traceback_is_read_as_a_traceback() {
    let index = index();
    let found = index.locate(NOTEBOOK, 10, None);
    let ranked: Vec<&str> = found.files.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(found.frames, 2, "the cell is no frame");
    assert_eq!(ranked[..2], ["shop/pricing.py", "shop/orders.py"], "{ranked:?}");
    raised_in_line_total(&found.files[0]);
    // The docstring quoted beside a frame's line is context, not a phrase.
    assert!(found.files.iter().all(|f| f.evidence.phrase_texts.iter().all(|p| !p.contains("before discounts"))));
}

#[test]
fn a_frame_from_another_version_names_its_function_not_whatever_is_at_its_line() {
    // The report ran a version where `line_total` sat lower in the file.
    let report = TRACEBACK.replace("pricing.py\", line 6, in line_total", "pricing.py\", line 12, in line_total");
    let found = index().locate(&report, 10, None);
    let pricing = found.files.iter().find(|f| f.file == "shop/pricing.py").unwrap();
    let frame =
        pricing.symbols.iter().find(|s| s.why.iter().any(|w| w == "traceback line 12")).expect("the frame's symbol");
    assert_eq!(frame.symbol, "shop.pricing.line_total", "not `round_cents`, which holds line 12 here");
}

#[test]
fn a_quoted_error_message_finds_the_code_that_raises_it_before_its_test() {
    let index = index();
    let found = index.locate(MESSAGE, 10, None);
    let first = &found.files[0];
    assert_eq!(first.file, "shop/discounts.py", "{:?}", files(&index, MESSAGE));
    assert!(
        first.reasons.iter().any(|r| r.contains("\"the discount code has expired and cannot be applied\"")),
        "{:?}",
        first.reasons
    );
    assert_eq!(first.evidence.phrase_texts.len(), 1);
    // The test raises the same error by name, and shares the words: below.
    let ranked = files(&index, MESSAGE);
    let test = ranked.iter().position(|f| f == "tests/test_discounts.py");
    assert!(test.is_none_or(|t| t > 0), "{ranked:?}");
}

#[test]
fn a_copy_of_another_project_ranks_below_the_projects_own_code() {
    let index = index();
    let found = index.locate(SEPARATED, 10, None);
    let ranked = files(&index, SEPARATED);
    // The copied library shares more of the report's words than the shop's
    // own pricing, where the fix belongs.
    assert_eq!(found.files[0].file, "shop/pricing.py", "{ranked:?}");
    let copy =
        found.files.iter().find(|f| f.file == "shop/extern/moneyparse/amounts.py").expect("the copy is still found");
    assert!(
        copy.reasons.iter().any(|r| r == "vendored, by GitHub Linguist's rules: ranked below the project's own source"),
        "{:?}",
        copy.reasons
    );
}

#[test]
fn a_files_name_written_as_two_words_points_at_that_file() {
    // `giftcards.py` never writes "gift"; the VAT's words are `tax.py`'s.
    let index = index();
    let found = index.locate(TWO_WORDS, 10, None);
    assert_eq!(found.files[0].file, "shop/giftcards.py", "{:?}", files(&index, TWO_WORDS));
    assert!(
        found.files[0].reasons.iter().any(|r| r == "its name is a word of the report"),
        "{:?}",
        found.files[0].reasons
    );
}

#[test]
fn a_dotted_api_path_resolves_to_its_definition() {
    let index = index();
    let found = index.locate(DOTTED, 10, None);
    let first = &found.files[0];
    assert_eq!(first.file, "shop/tax.py", "{:?}", files(&index, DOTTED));
    let vat = first.symbols.iter().find(|s| s.symbol == "shop.tax.vat_rate").expect("the named function");
    assert!(vat.why.iter().any(|w| w.contains("`shop.tax.vat_rate`")), "{:?}", vat.why);
    assert!(first.evidence.named.iter().all(|n| n.specificity == 1.0));
}

#[test]
fn a_name_in_the_title_outweighs_the_names_its_example_calls() {
    let index = index();
    let found = index.locate(TITLED, 10, None);
    let first = &found.files[0];
    assert_eq!(first.file, "shop/pricing.py", "{:?}", files(&index, TITLED));
    assert!(first.reasons.iter().any(|r| r == "defines what the title names: `round_cents`"), "{:?}", first.reasons);
    // The example's names and most of the words are the order's: without
    // its title, the report is about the order and the command line.
    let untitled = TITLED.split_once('\n').unwrap().1;
    assert_ne!(files(&index, untitled)[0], "shop/pricing.py");
    // With the name in the body instead, it counts as any name does.
    let named_below = format!("An order's total is wrong\n{untitled}\nThe fault is in `round_cents`.\n");
    assert_ne!(files(&index, &named_below)[0], "shop/pricing.py", "{:?}", files(&index, &named_below));
}

#[test]
fn a_code_shaped_word_that_is_a_files_name_points_at_that_file() {
    let index = index();
    let found = index.locate(CODED, 10, None);
    let first = &found.files[0];
    assert_eq!(first.file, "shop/checks/C002.py", "{:?}", files(&index, CODED));
    assert!(first.reasons.iter().any(|r| r == "its name is a word of the report"), "{:?}", first.reasons);
    // The package that runs every check shares more of the words.
    assert_eq!(first.evidence.word_rank, Some(2));
}

#[test]
fn the_titles_words_spelling_a_definitions_name_point_at_it() {
    let index = index();
    let found = index.locate(SPELLED, 10, None);
    let first = &found.files[0];
    assert_eq!(first.file, "shop/pricing.py", "{:?}", files(&index, SPELLED));
    assert!(first.reasons.iter().any(|r| r == "the title's words spell `round_cents`"), "{:?}", first.reasons);
    // Its test spells the name too, and is not counted against it.
    assert_eq!(first.evidence.title_run, 1.0);
    // Words apart spell nothing.
    let apart = SPELLED.replacen("Rounding cents makes", "Rounding makes the cents of", 1);
    assert_ne!(files(&index, &apart)[0], "shop/pricing.py", "{:?}", files(&index, &apart));
}

#[test]
fn search_ranks_a_reports_files_as_locate_does_and_short_queries_as_before() {
    let index = index();
    for report in [TRACEBACK, MESSAGE, DOTTED] {
        let options = SearchOptions { k: 10, mode: SearchMode::Lexical, ..SearchOptions::default() };
        let searched: Vec<String> = index.search(report, &options, None).files.into_iter().map(|f| f.file).collect();
        assert_eq!(searched, files(&index, report));
        // Read as plain text, the report's words alone decide.
        let plain = SearchOptions { read_report: false, ..options };
        let words: Vec<String> = index.search(report, &plain, None).files.into_iter().map(|f| f.file).collect();
        assert!(!words.is_empty());
    }
    // A short query is no report: its files follow its hits, as before.
    let options = SearchOptions { k: 10, mode: SearchMode::Lexical, ..SearchOptions::default() };
    let short = index.search("vat rate", &options, None);
    let off = index.search("vat rate", &SearchOptions { read_report: false, ..options }, None);
    assert_eq!(
        short.files.iter().map(|f| &f.file).collect::<Vec<_>>(),
        off.files.iter().map(|f| &f.file).collect::<Vec<_>>()
    );
}

#[test]
fn a_report_naming_nothing_of_the_repository_finds_nothing_strong() {
    let index = index();
    let found = index.locate(
        "The spaceship's warp drive overheats\n\nAfter ten minutes at warp 9 the core melts.\nIt should not.",
        10,
        None,
    );
    assert!(found.files.iter().all(|f| f.evidence.named.is_empty() && f.evidence.frame_depth.is_none()));
    assert!(found.files.iter().all(|f| f.evidence.phrase_texts.is_empty()));
}
