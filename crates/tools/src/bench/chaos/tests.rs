use super::*;

fn targets_of(args: Shape) -> Vec<(FaultKind, Vec<String>)> {
    targets(&generate(&args, &GenerateOptions::default()).unwrap())
}

#[test]
fn a_tree_has_leaves_mid_routers_and_the_registry_router_a_mesh_no_mid() {
    let tree = targets_of(Shape::Tree {
        fanout: 2,
        levels: 3,
        federates: 1,
    });
    let kinds: Vec<FaultKind> = tree.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        [FaultKind::Leaf, FaultKind::Mid, FaultKind::Registry]
    );
    assert_eq!(tree[0].1.len(), 4);
    assert_eq!(tree[1].1.len(), 2);
    assert_eq!(tree[2].1, ["root"]);
    let mesh = targets_of(Shape::Mesh {
        routers: 4,
        federates: 1,
    });
    let kinds: Vec<FaultKind> = mesh.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, [FaultKind::Leaf, FaultKind::Registry]);
    assert_eq!(mesh[0].1.len(), 3);
}

#[test]
fn the_schedule_takes_each_kind_once_in_turn_then_repeats_by_seed() {
    let targets = vec![
        (FaultKind::Leaf, vec!["a".into(), "b".into()]),
        (FaultKind::Mid, vec!["m".into()]),
        (FaultKind::Registry, vec!["r".into()]),
    ];
    let run = |seed| {
        let mut schedule = Schedule::new(seed, targets.clone());
        (0..12).map(|_| schedule.next()).collect::<Vec<_>>()
    };
    let first = run(7);
    let kinds: Vec<FaultKind> = first[..3].iter().map(|(k, _)| *k).collect();
    assert_eq!(
        kinds,
        [FaultKind::Leaf, FaultKind::Mid, FaultKind::Registry]
    );
    assert_eq!(first, run(7));
    assert_ne!(first, run(8));
}

#[test]
fn csv_fields_with_commas_are_quoted() {
    assert_eq!(
        field("federation lost, rejoined".into()),
        "\"federation lost, rejoined\""
    );
    assert_eq!(field("plain".into()), "plain");
}
