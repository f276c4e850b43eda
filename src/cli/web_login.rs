//! `arbiter web-login --user ID`: prints a one-time login link for the web dashboard. It works while the daemon
//! runs in another process: links are files in the dashboard's state folder (see `web::auth`), which the daemon
//! reads when the link is opened.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::actions::Access;
use crate::web::{AuthStore, Links, WebSettings};

use super::exit;

pub fn run(config_path: Option<PathBuf>, user: u64) -> ExitCode {
    let (_, cfg) = match super::run::load(config_path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(web) = &cfg.web else {
        eprintln!(
            "arbiter: {}: the web dashboard is off; add \"web\": {{\"listen\": \"127.0.0.1:8470\"}} and restart the daemon",
            cfg.path.display()
        );
        return ExitCode::from(exit::FAILURE);
    };
    // Who may sign in is the owner-action layer's decision, as for every other front end.
    if !Access::new(cfg.telegram.allowed_users.iter().copied()).is_member(user) {
        eprintln!("arbiter: user {user} is not in telegram.allowedUsers; no link was made");
        return ExitCode::from(exit::INVALID);
    }
    let dir = WebSettings::state_dir_for(&cfg.path);
    let links = match AuthStore::open(&dir) {
        Ok(auth) => Links {
            auth,
            base: Links::base_for(web.listen, web.public_url.as_ref()),
        },
        Err(e) => {
            eprintln!("arbiter: {}: {e}", dir.display());
            return ExitCode::from(exit::FAILURE);
        }
    };
    match links.login_link(user) {
        Ok(link) => {
            println!("{link}");
            eprintln!("Valid for 10 minutes, once.");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("arbiter: {}: {e}", dir.display());
            ExitCode::from(exit::FAILURE)
        }
    }
}
