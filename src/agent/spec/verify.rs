//! The rendered file read back: it must hold the decisions, titles and options the spec asked for.

use crate::plan::Plan;

use super::{PlanSpec, SpecError, decision_ids};

/// Checks that the rendered file reads back as the spec asked: the same decisions, ids and options. A context
/// holding a `## ` heading or an `**Options:**` line would otherwise change the plan's shape silently.
pub fn verify(spec: &PlanSpec, plan: &Plan) -> Result<(), SpecError> {
    let ids = decision_ids(spec);
    let read_ids: Vec<&str> = plan.decisions.iter().map(|d| d.id.as_str()).collect();
    if read_ids != ids.iter().map(String::as_str).collect::<Vec<_>>() {
        return Err(SpecError::DecisionsChanged {
            read: read_ids.into_iter().map(str::to_owned).collect(),
            asked: ids,
        });
    }
    for (n, (d, read)) in spec.decisions.iter().zip(&plan.decisions).enumerate() {
        let options: Vec<(&str, &str)> = d
            .options
            .iter()
            .map(|o| (o.key.trim(), o.label_or_key()))
            .collect();
        let read_options: Vec<(&str, &str)> = read
            .options
            .iter()
            .map(|o| (o.key.as_str(), o.label.as_str()))
            .collect();
        if read.title != d.title.trim() {
            return Err(SpecError::TitleChanged {
                n,
                read: read.title.clone(),
                asked: d.title.trim().to_owned(),
            });
        }
        if options != read_options || d.allow_custom != read.allow_custom {
            return Err(SpecError::OptionsChanged { n });
        }
    }
    Ok(())
}
