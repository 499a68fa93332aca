//! The analyses' interface: irreducible functions get a message, not a panic;
//! `InitShapes` from parameter names; the reconverging-CFG check (poster,
//! Definition 1); the annotated, JSON and Graphviz outputs are deterministic and
//! carry the shapes.

use pllvm_analysis::PostDomTree;
use pllvm_analysis::reconverging::{Violation, check_reconverging};
use pllvm_analysis::render;
use pllvm_analysis::result::{AnalysisError, AnalysisKind, InitShapes, Uniformity};
use pllvm_analysis::shape::Shape;
use pllvm_analysis::uniformity::analyze_named;
use pllvm_semantics::ir::Module;
use pllvm_semantics::text::parse_module;

fn module(src: &str) -> Module {
    match parse_module(src) {
        Ok((m, _)) => m,
        Err(e) => panic!("test program does not parse: {e:?}"),
    }
}

fn run(m: &Module, kind: AnalysisKind, uniform: &[&str]) -> Uniformity {
    let names: Vec<String> = uniform.iter().map(|s| s.to_string()).collect();
    match analyze_named(m, None, kind, &names) {
        Ok(r) => r,
        Err(e) => panic!("{kind}: {e}"),
    }
}

const DIAMOND: &str = "define i32 @f(i1 %c, i32 %n) {
A:
  %a = add i32 %n, 1
  br i1 %c, label %B, label %C
B:
  br label %D
C:
  br label %D
D:
  %x = phi i32 [ 1, %B ], [ 2, %C ]
  ret i32 %x
}
";

const THREE_WAY: &str = "define i32 @f(i32 %s) {
A:
  switch i32 %s, label %B [
    i32 1, label %C
    i32 2, label %D
  ]
B:
  br label %E
C:
  br label %E
D:
  br label %E
E:
  ret i32 0
}
";

const UNSTRUCTURED: &str = "define i32 @f(i1 %p, i1 %q) {
A:
  br i1 %p, label %B, label %C
B:
  br i1 %q, label %D, label %E
C:
  br label %D
D:
  br label %E
E:
  ret i32 0
}
";

#[test]
fn irreducible_functions_get_a_message() {
    let m = module(
        "define void @f(i1 %c) {
entry:
  br i1 %c, label %x, label %y
x:
  br i1 %c, label %y, label %exit
y:
  br label %x
exit:
  ret void
}
",
    );
    // `llvm` analyses irreducible functions: %c is varying, so both branches are.
    match analyze_named(&m, None, AnalysisKind::Llvm, &[]) {
        Ok(r) => assert_eq!(r.divergent_branches(body_of(&m)).len(), 2),
        Err(e) => panic!("llvm: expected a result, got {e}"),
    }
    for kind in [AnalysisKind::Thesis, AnalysisKind::Popl] {
        match analyze_named(&m, None, kind, &[]) {
            Err(AnalysisError::Irreducible(why)) => {
                let text = AnalysisError::Irreducible(why).to_string();
                assert!(text.contains("irreducible"), "{text}");
                assert!(text.contains("assume reducible"), "{text}");
            }
            other => panic!("{kind}: expected an irreducibility error, got {other:?}"),
        }
    }
}

#[test]
fn init_shapes_from_names_and_numbers() {
    let m = module(DIAMOND);
    let Some(f) = m.first_definition() else {
        panic!("no function")
    };
    let func = &m.functions[f];
    let by_name = InitShapes::with_uniform(func, &["n".into()]);
    assert_eq!(
        by_name,
        Ok(InitShapes {
            params: vec![Shape::Varying, Shape::Uniform]
        })
    );
    let by_number = InitShapes::with_uniform(func, &["%0".into()]);
    assert_eq!(
        by_number,
        Ok(InitShapes {
            params: vec![Shape::Uniform, Shape::Varying]
        })
    );
    assert!(matches!(
        InitShapes::with_uniform(func, &["nope".into()]),
        Err(AnalysisError::UnknownArgument { .. })
    ));
    assert!(matches!(
        analyze_named(&m, Some("g"), AnalysisKind::Thesis, &[]),
        Err(AnalysisError::NoFunction(_))
    ));
}

#[test]
fn diamond_shapes_follow_the_uniformity_of_c() {
    let m = module(DIAMOND);
    for kind in AnalysisKind::ALL {
        let uniform = run(&m, kind, &["c", "n"]);
        let varying = run(&m, kind, &["n"]);
        let Some(body) = m.functions[uniform.func].body.as_ref() else {
            panic!("no body")
        };
        let x = body.value_by_name("x").unwrap_or_else(|| panic!("no %x"));
        let a = body.value_by_name("a").unwrap_or_else(|| panic!("no %a"));
        assert_eq!(uniform.value(x), Shape::Uniform, "{kind}");
        assert_eq!(varying.value(x), Shape::Varying, "{kind}");
        assert_eq!(varying.value(a), Shape::Uniform, "{kind}");
        let d = body.block_by_name("D").unwrap_or_else(|| panic!("no D"));
        assert!(varying.sync_joins.contains(&d), "{kind}");
        assert!(uniform.sync_joins.is_empty(), "{kind}");
    }
}

#[test]
fn reconverging_checker_follows_definition_1() {
    // A diamond: A's divergent branch has two successors, neither post-dominates A.
    let m = module(DIAMOND);
    let r = run(&m, AnalysisKind::Thesis, &["n"]);
    let Some(body) = m.functions[r.func].body.as_ref() else {
        panic!("no body")
    };
    let pdt = PostDomTree::compute(body);
    let a = body.block_by_name("A").unwrap_or_else(|| panic!("no A"));
    assert_eq!(
        check_reconverging(body, &pdt, &r),
        vec![Violation::NoPrimarySuccessor { block: a }]
    );
    // With c uniform there is no divergent condition node: reconverging.
    let r = run(&m, AnalysisKind::Thesis, &["c", "n"]);
    assert!(check_reconverging(body, &pdt, &r).is_empty());
    // A divergent three-way switch is never reconverging.
    let m = module(THREE_WAY);
    let r = run(&m, AnalysisKind::Popl, &[]);
    let Some(body) = m.functions[r.func].body.as_ref() else {
        panic!("no body")
    };
    let pdt = PostDomTree::compute(body);
    let a = body.block_by_name("A").unwrap_or_else(|| panic!("no A"));
    assert_eq!(
        check_reconverging(body, &pdt, &r),
        vec![Violation::NotTwoSuccessors {
            block: a,
            successors: 3
        }]
    );
    // Poster Fig. 2a-like: B's divergent branch has the primary successor E (it
    // post-dominates B), A's has none.
    let m = module(UNSTRUCTURED);
    let r = run(&m, AnalysisKind::Thesis, &[]);
    let Some(body) = m.functions[r.func].body.as_ref() else {
        panic!("no body")
    };
    let pdt = PostDomTree::compute(body);
    let a = body.block_by_name("A").unwrap_or_else(|| panic!("no A"));
    assert_eq!(
        check_reconverging(body, &pdt, &r),
        vec![Violation::NoPrimarySuccessor { block: a }]
    );
}

#[test]
fn outputs_carry_the_shapes() {
    let m = module(DIAMOND);
    let t = run(&m, AnalysisKind::Thesis, &["n"]);
    let p = run(&m, AnalysisKind::Popl, &["n"]);
    let text = render::annotate(&m, &[&t, &p]);
    assert_eq!(text, render::annotate(&m, &[&t, &p]), "deterministic");
    let line = |needle: &str| {
        text.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle} in\n{text}"))
            .to_string()
    };
    assert!(line("%x = phi").ends_with("; varying"), "{text}");
    assert!(line("%a = add").ends_with("; uniform"), "{text}");
    assert!(line("br i1 %c").ends_with("; varying"), "{text}");
    assert!(line("D:").contains("sync join"), "{text}");
    assert!(line("B:").contains("activation varying"), "{text}");
    let report = render::report(&m, &[&t]);
    assert_eq!(report.analyses.len(), 1);
    assert_eq!(report.analyses[0].sync_joins, vec!["D".to_string()]);
    assert!(!report.analyses[0].reconverging);
    let dot = render::dot(&m, &t);
    assert!(dot.starts_with("digraph \"f\" {"), "{dot}");
    assert!(
        dot.contains("\"A\" [label=\"A\\nactivation u\", color=red"),
        "{dot}"
    );
    assert!(
        dot.contains("\"D\" [label=\"D\\nactivation u\", fillcolor=lightblue"),
        "{dot}"
    );
}

fn body_of(m: &pllvm_semantics::ir::Module) -> &pllvm_semantics::ir::Body {
    let Some(f) = m.first_definition() else {
        panic!("no function")
    };
    let Some(body) = m.functions[f].body.as_ref() else {
        panic!("no body")
    };
    body
}
