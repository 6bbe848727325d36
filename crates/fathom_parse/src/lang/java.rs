use fathom_model::{BaseRef, ClassKind, Decorator, Definition, Parameter, Span, SymbolKind, Visibility};

use crate::profile::{Docstrings, Profile, TestContext, has_decorator, in_test_dir, keyword_visibility};

pub(crate) static PROFILE: Profile = Profile {
    grammar: grammar!(tree_sitter_java::LANGUAGE),
    definitions: include_str!("../../queries/java/definitions.scm"),
    references: include_str!("../../queries/java/references.scm"),
    branches: &[
        "if_statement",
        "for_statement",
        "enhanced_for_statement",
        "while_statement",
        "do_statement",
        // The `case` keyword of a switch label: `default` adds no path.
        "case",
        "catch_clause",
        "ternary_expression",
    ],
    binary_expressions: &["binary_expression"],
    variables: &["identifier"],
    comments: &["line_comment", "block_comment"],
    docstrings: Docstrings::LeadingComments,
    wrappers: &[],
    implicit_parameters: &[],
    visibility,
    is_constructor: |_, _| false,
    is_test,
    synthesize,
    test_macros: &[],
    unreserved: None,
    preprocessed: false,
    declaration_files: &[],
};

/// Keywords, else package-private. Members of interfaces and annotation
/// types, and enum constants, are public; [`synthesize`] corrects those.
fn visibility(_name: &str, modifiers: &[String]) -> Option<Visibility> {
    keyword_visibility(modifiers, Some(Visibility::Internal))
}

/// The test annotations of the JVM's test frameworks (JUnit 4 and 5, jqwik,
/// Theories), shared with Kotlin.
pub(super) const JVM_TEST_ANNOTATIONS: &[&str] =
    &["Test", "ParameterizedTest", "RepeatedTest", "TestFactory", "TestTemplate", "Property", "Theory"];

/// JUnit 4/5 (and TestNG) annotations; test classes; JUnit 3's `testX`
/// methods of test classes.
fn is_test(c: &TestContext<'_>) -> bool {
    match c.kind {
        SymbolKind::Method => {
            has_decorator(c.decorators, JVM_TEST_ANNOTATIONS)
                || (junit3_name(c.name) && c.class.is_some_and(|(class, bases)| test_class(class, bases, c.path)))
        }
        SymbolKind::Class => test_class(c.name, c.bases, c.path),
        _ => false,
    }
}

/// `test`, `testParse`, `test_parse`, `test2`: JUnit 3 runs them by name.
fn junit3_name(name: &str) -> bool {
    name.strip_prefix("test").is_some_and(|rest| {
        rest.is_empty() || rest.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit() || c == '_')
    })
}

/// `FooTest`, `FooTests`, a `TestCase` subclass; in a test folder also
/// `TestFoo` and a subclass of the project's own test base (`BaseTest`,
/// `AbstractFooTest`, `FooTestBase`), as JUnit 3 suites are written.
fn test_class(name: &str, bases: &[BaseRef], path: &str) -> bool {
    let base_named = |suffixes: &[&str]| {
        bases.iter().any(|b| {
            let simple = b.name.rsplit(['.', '$']).next().unwrap_or(&b.name);
            let simple = simple.split('<').next().unwrap_or(simple);
            suffixes.iter().any(|s| simple.ends_with(s))
        })
    };
    name.ends_with("Test")
        || name.ends_with("Tests")
        || base_named(&["TestCase"])
        || (in_test_dir(path)
            && (name.strip_prefix("Test").is_some_and(|rest| rest.starts_with(char::is_uppercase))
                || base_named(&["Test", "TestBase"])))
}

/// Corrections the queries cannot express, then Lombok's generated members.
fn synthesize(definitions: &mut Vec<Definition>) {
    implicit_visibility(definitions);
    for d in definitions.iter_mut() {
        d.parameters.iter_mut().for_each(varargs);
    }
    lombok(definitions);
}

/// Visibility that the context implies when no keyword says it: interface
/// and annotation members and enum constants are public; record components,
/// and the fields of a Lombok `@Value` class, are private.
fn implicit_visibility(definitions: &mut [Definition]) {
    for at in 0..definitions.len() {
        let Some(parent) = definitions[at].parent else { continue };
        let d = &definitions[at];
        let p = &definitions[parent];
        let explicit = d.modifiers.iter().any(|m| matches!(m.as_str(), "public" | "protected" | "private"));
        let field = d.kind == SymbolKind::Field;
        let is_static = d.modifiers.iter().any(|m| m == "static");
        let implied = match (p.kind, p.class_kind) {
            (SymbolKind::Annotation, _) | (SymbolKind::Class, Some(ClassKind::Interface)) => Some(Visibility::Public),
            (SymbolKind::Class, Some(ClassKind::Enum)) if field && d.type_name.is_none() => Some(Visibility::Public),
            // A record declares no instance fields but its components.
            (SymbolKind::Class, Some(ClassKind::Record)) if field && !is_static => Some(Visibility::Private),
            (SymbolKind::Class, _) if field && !is_static && find(&p.decorators, "Value").is_some() => {
                Some(Visibility::Private)
            }
            _ => None,
        };
        if let (Some(visibility), false) = (implied, explicit) {
            definitions[at].visibility = Some(visibility);
        }
    }
}

/// `String... names` has no name or type field in the grammar: split the text.
fn varargs(p: &mut Parameter) {
    if !p.text.contains("...") || p.type_name.is_some() {
        return;
    }
    let text: String =
        p.text.split_whitespace().filter(|w| !w.starts_with('@') && *w != "final").collect::<Vec<_>>().join(" ");
    if let Some((ty, name)) = text.rsplit_once(' ') {
        p.name = Some(name.to_owned());
        p.type_name = Some(ty.to_owned());
    }
}

// ---------------------------------------------------------------------------
// Lombok

/// One field of a class, as Lombok sees it.
struct Field {
    name: String,
    type_name: String,
    is_final: bool,
    is_static: bool,
    initialized: bool,
    non_null: bool,
    decorators: Vec<Decorator>,
}

/// What an annotation asks for, with its access level (`AccessLevel.NONE` asks for nothing).
fn access(decorator: &Decorator) -> Option<Visibility> {
    let args = decorator.arguments.as_deref().unwrap_or("");
    if args.contains("AccessLevel.NONE") {
        None
    } else if args.contains("AccessLevel.PROTECTED") {
        Some(Visibility::Protected)
    } else if args.contains("AccessLevel.PRIVATE") {
        Some(Visibility::Private)
    } else if args.contains("AccessLevel.PACKAGE") {
        Some(Visibility::Internal)
    } else {
        Some(Visibility::Public)
    }
}

fn find<'d>(decorators: &'d [Decorator], name: &str) -> Option<&'d Decorator> {
    decorators.iter().find(|d| d.name == name || d.name == format!("lombok.{name}"))
}

/// Adds the members that Lombok's annotations generate, for every class
/// that carries one (on itself or on a field).
fn lombok(definitions: &mut Vec<Definition>) {
    let classes: Vec<usize> = (0..definitions.len())
        .filter(|&at| definitions[at].kind == SymbolKind::Class && definitions[at].synthesized.is_none())
        .collect();
    for class in classes {
        let members = lombok_members(definitions, class);
        definitions.extend(members);
    }
}

fn lombok_members(definitions: &[Definition], class: usize) -> Vec<Definition> {
    let c = &definitions[class];
    let on_class = |name: &str| find(&c.decorators, name);
    let value = on_class("Value");
    let data = on_class("Data");
    let fields: Vec<Field> = definitions
        .iter()
        .filter(|d| d.kind == SymbolKind::Field && d.parent == Some(class) && d.type_name.is_some())
        .map(|d| Field {
            name: d.name.clone(),
            type_name: d.type_name.clone().unwrap_or_default(),
            // `@Value` makes every field final.
            is_final: d.modifiers.iter().any(|m| m == "final") || value.is_some(),
            is_static: d.modifiers.iter().any(|m| m == "static"),
            initialized: initialized(d),
            non_null: find(&d.decorators, "NonNull").is_some(),
            decorators: d.decorators.clone(),
        })
        .collect();
    // `is_lombok` covers @Data and @Value too.
    let annotated = c.decorators.iter().chain(fields.iter().flat_map(|f| &f.decorators)).any(|d| is_lombok(&d.name));
    if c.class_kind != Some(ClassKind::Class) || !annotated {
        return Vec::new();
    }
    let mut out = Synthesized { definitions, class, out: Vec::new() };
    let instance: Vec<&Field> = fields.iter().filter(|f| !f.is_static).collect();

    // Accessors: from the class annotation (or @Data/@Value), or the field's own.
    let class_getter = on_class("Getter").and_then(|d| access(d).map(|v| (v, d.span)));
    let class_setter = on_class("Setter").and_then(|d| access(d).map(|v| (v, d.span)));
    let implied_getter = data.or(value).map(|d| (Visibility::Public, d.span));
    let implied_setter = data.map(|d| (Visibility::Public, d.span));
    for f in &instance {
        let getter = match find(&f.decorators, "Getter") {
            Some(d) => access(d).map(|v| (v, d.span)),
            None => class_getter.or(implied_getter),
        };
        if let Some((visibility, span)) = getter {
            out.method(getter_name(f), vec![], Some(f.type_name.clone()), visibility, span, false);
        }
        let setter = match find(&f.decorators, "Setter") {
            Some(d) => access(d).map(|v| (v, d.span)),
            None => class_setter.or(implied_setter),
        };
        if let (Some((visibility, span)), false) = (setter, f.is_final) {
            out.method(setter_name(f), vec![param(f)], Some("void".to_owned()), visibility, span, false);
        }
    }

    // Constructors. @Data and @Value generate theirs only when the class
    // declares none and asks for none explicitly.
    let explicit_ctor = ["NoArgsConstructor", "RequiredArgsConstructor", "AllArgsConstructor"]
        .iter()
        .any(|name| on_class(name).is_some());
    let declares_ctor = definitions.iter().any(|d| d.parent == Some(class) && d.is_constructor);
    let required: Vec<&Field> =
        instance.iter().copied().filter(|f| (f.is_final && !f.initialized) || f.non_null).collect();
    let all: Vec<&Field> = instance.iter().copied().filter(|f| !(f.is_final && f.initialized)).collect();
    if let Some(d) = on_class("NoArgsConstructor")
        && let Some(v) = access(d)
    {
        out.constructor(&[], v, d.span);
    }
    if let Some(d) = on_class("RequiredArgsConstructor")
        && let Some(v) = access(d)
    {
        out.constructor(&required, v, d.span);
    }
    if let Some(d) = on_class("AllArgsConstructor")
        && let Some(v) = access(d)
    {
        out.constructor(&all, v, d.span);
    }
    if !explicit_ctor && !declares_ctor {
        if let Some(d) = data {
            out.constructor(&required, Visibility::Public, d.span);
        } else if let Some(d) = value {
            out.constructor(&all, Visibility::Public, d.span);
        }
    }
    if let Some(d) = on_class("Builder") {
        // Without any constructor, @Builder adds a package-private all-args one.
        if !explicit_ctor && !declares_ctor && data.is_none() && value.is_none() {
            out.constructor(&all, Visibility::Internal, d.span);
        }
        let builder = format!("{}Builder", c.name);
        let mut method = out.make("builder".to_owned(), vec![], Some(builder), Visibility::Public, d.span, false);
        method.modifiers = vec!["public".to_owned(), "static".to_owned()];
        method.signature = Some(format!("public static {}Builder builder()", c.name));
        out.push(method);
    }

    // @Data and @Value also write toString, equals and hashCode.
    let object_methods = data.or(value).map(|d| d.span).into_iter().chain(on_class("ToString").map(|d| d.span));
    for span in object_methods.collect::<Vec<_>>() {
        out.method("toString".to_owned(), vec![], Some("String".to_owned()), Visibility::Public, span, false);
    }
    let equality = data.or(value).or(on_class("EqualsAndHashCode")).map(|d| d.span);
    if let Some(span) = equality {
        let other =
            Parameter { text: "Object o".to_owned(), name: Some("o".to_owned()), type_name: Some("Object".to_owned()) };
        out.method("equals".to_owned(), vec![other], Some("boolean".to_owned()), Visibility::Public, span, false);
        out.method("hashCode".to_owned(), vec![], Some("int".to_owned()), Visibility::Public, span, false);
    }
    out.out
}

fn is_lombok(name: &str) -> bool {
    let name = name.strip_prefix("lombok.").unwrap_or(name);
    matches!(
        name,
        "Data"
            | "Value"
            | "Getter"
            | "Setter"
            | "Builder"
            | "NoArgsConstructor"
            | "RequiredArgsConstructor"
            | "AllArgsConstructor"
            | "ToString"
            | "EqualsAndHashCode"
    )
}

/// Whether a field declaration gives its field a value (`= ...` after the name).
fn initialized(field: &Definition) -> bool {
    let Some(signature) = &field.signature else { return false };
    let mut search = signature.as_str();
    while let Some(at) = search.find(field.name.as_str()) {
        let before = search[..at].chars().next_back();
        let after = &search[at + field.name.len()..];
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if boundary(before) && boundary(after.chars().next()) {
            return after.trim_start().starts_with('=');
        }
        search = after;
    }
    false
}

/// `getName`, or `isActive` for a `boolean` field (`isActive` keeps its name).
fn getter_name(f: &Field) -> String {
    if f.type_name == "boolean" {
        match f.name.strip_prefix("is") {
            Some(rest) if rest.starts_with(|c: char| c.is_uppercase()) => f.name.clone(),
            _ => format!("is{}", capitalize(&f.name)),
        }
    } else {
        format!("get{}", capitalize(&f.name))
    }
}

fn setter_name(f: &Field) -> String {
    let base = match f.name.strip_prefix("is") {
        Some(rest) if f.type_name == "boolean" && rest.starts_with(|c: char| c.is_uppercase()) => rest.to_owned(),
        _ => capitalize(&f.name),
    };
    format!("set{base}")
}

fn capitalize(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn param(f: &Field) -> Parameter {
    Parameter {
        text: format!("{} {}", f.type_name, f.name),
        name: Some(f.name.clone()),
        type_name: Some(f.type_name.clone()),
    }
}

/// Collects generated members, skipping those the class already has.
struct Synthesized<'d> {
    definitions: &'d [Definition],
    class: usize,
    out: Vec<Definition>,
}

impl Synthesized<'_> {
    fn make(
        &self,
        name: String,
        parameters: Vec<Parameter>,
        return_type: Option<String>,
        visibility: Visibility,
        span: Span,
        constructor: bool,
    ) -> Definition {
        let mut d = Definition::new(SymbolKind::Method, name, Some(self.class), span);
        let keyword = match visibility {
            Visibility::Public => "public",
            Visibility::Protected => "protected",
            Visibility::Private => "private",
            _ => "",
        };
        let params: Vec<&str> = parameters.iter().map(|p| p.text.as_str()).collect();
        let head = [keyword, return_type.as_deref().unwrap_or("")].into_iter().filter(|w| !w.is_empty());
        let head: Vec<&str> = head.collect();
        d.signature = Some(format!(
            "{}{}{}({})",
            head.join(" "),
            if head.is_empty() { "" } else { " " },
            d.name,
            params.join(", ")
        ));
        d.modifiers = if keyword.is_empty() { Vec::new() } else { vec![keyword.to_owned()] };
        d.visibility = Some(visibility);
        d.parameters = parameters;
        d.return_type = return_type;
        d.is_constructor = constructor;
        d.synthesized = Some(fathom_model::Synthesized::Lombok);
        d
    }

    fn method(
        &mut self,
        name: String,
        parameters: Vec<Parameter>,
        return_type: Option<String>,
        visibility: Visibility,
        span: Span,
        constructor: bool,
    ) {
        let d = self.make(name, parameters, return_type, visibility, span, constructor);
        self.push(d);
    }

    fn constructor(&mut self, fields: &[&Field], visibility: Visibility, span: Span) {
        let name = self.definitions[self.class].name.clone();
        let parameters = fields.iter().map(|f| param(f)).collect();
        self.method(name, parameters, None, visibility, span, true);
    }

    /// Adds `d` unless a member with its name and parameter types exists.
    fn push(&mut self, d: Definition) {
        let types = |x: &Definition| x.parameters.iter().map(|p| p.type_name.clone()).collect::<Vec<_>>();
        let same = |x: &Definition| {
            x.parent == Some(self.class) && x.kind == SymbolKind::Method && x.name == d.name && types(x) == types(&d)
        };
        if !self.definitions.iter().any(same) && !self.out.iter().any(same) {
            self.out.push(d);
        }
    }
}
