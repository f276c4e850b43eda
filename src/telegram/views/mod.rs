//! TEMPORARY SHIM (not committed)
use crate::plan::{Decision, Plan};
use crate::telegram::callback::Callback;
pub struct Button {
    pub text: String,
    pub data: Callback,
}
pub struct View {
    pub text: String,
    pub keyboard: Vec<Vec<Button>>,
    pub force_reply: bool,
}
impl View {
    pub fn text_only(t: &str) -> View {
        View {
            text: t.into(),
            keyboard: vec![],
            force_reply: false,
        }
    }
}
fn v() -> View {
    View::text_only("x")
}
pub fn queue(_p: &[&Plan], _page: usize) -> View {
    v()
}
pub fn plan(_p: &Plan) -> View {
    v()
}
pub fn decision(_p: &Plan, _i: usize, _c: Option<&str>) -> View {
    v()
}
pub fn after_answer(_d: &Decision) -> String {
    String::new()
}
pub fn review(_p: &Plan, _c: Option<&str>) -> View {
    v()
}
pub fn completion(_p: &Plan) -> View {
    v()
}
pub fn announcement(_p: &Plan) -> View {
    v()
}
pub fn announcement_burst(_p: &[&Plan]) -> View {
    v()
}
pub fn startup_summary(_p: &[&Plan]) -> View {
    v()
}
pub fn problem(_f: &str, _r: &str) -> View {
    v()
}
pub fn custom_prompt(_p: &Plan, _i: usize) -> View {
    v()
}
pub fn help() -> View {
    v()
}
