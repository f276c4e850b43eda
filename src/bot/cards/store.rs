//! Which cards exist: `<queue>/telegram-cards.json`, so a restart edits the cards it posted instead of posting
//! them again. Small (one line per card of a pending plan) and written atomically on every change.

use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::sync::lock;

/// The file's name in the queue folder.
pub const CARDS_FILE: &str = "telegram-cards.json";

/// One card: plan `plan`'s message `message` in `chat` (topic `thread`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardAt {
    pub plan: String,
    pub chat: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<i32>,
    pub message: i32,
    /// The plan's file name in pending/ (a submitted plan keeps it in completed/).
    #[serde(default)]
    pub file: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CardsFile {
    cards: Vec<CardAt>,
}

/// The cards, in memory and in the file.
#[derive(Debug, Default)]
pub struct Cards {
    cards: Mutex<Vec<CardAt>>,
    /// Serializes writes: the file always holds the latest list.
    writing: tokio::sync::Mutex<()>,
}

impl Cards {
    /// The cards remembered in `queue_root` (none when there is no file; a file that can't be read is logged and
    /// started afresh: the worst case is a card posted twice).
    #[must_use]
    pub fn load(queue_root: &Path) -> Cards {
        let path = queue_root.join(CARDS_FILE);
        let cards = crate::bot::kept::read::<CardsFile>(&path, "group cards")
            .map(|file| file.cards)
            .unwrap_or_default();
        Cards {
            cards: Mutex::new(cards),
            writing: tokio::sync::Mutex::default(),
        }
    }

    #[must_use]
    pub fn has(&self, plan: &str) -> bool {
        lock(&self.cards).iter().any(|c| c.plan == plan)
    }

    #[must_use]
    pub fn at(&self, plan: &str, chat: i64) -> Option<CardAt> {
        lock(&self.cards)
            .iter()
            .find(|c| c.plan == plan && c.chat == chat)
            .cloned()
    }

    #[must_use]
    pub fn of(&self, plan: &str) -> Vec<CardAt> {
        lock(&self.cards)
            .iter()
            .filter(|c| c.plan == plan)
            .cloned()
            .collect()
    }

    /// Every plan with a card, each once.
    #[must_use]
    pub fn plans(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.cards).iter().map(|c| c.plan.clone()).collect();
        ids.sort();
        ids.dedup();
        ids
    }

    pub async fn add(&self, card: CardAt, queue_root: &Path) {
        lock(&self.cards).push(card);
        self.save(queue_root).await;
    }

    pub async fn remove(&self, plan: &str, chat: i64, queue_root: &Path) {
        let removed = {
            let mut cards = lock(&self.cards);
            let before = cards.len();
            cards.retain(|c| !(c.plan == plan && c.chat == chat));
            before != cards.len()
        };
        if removed {
            self.save(queue_root).await;
        }
    }

    /// Writes the list as it is now (atomically: a crash leaves the old file or the new one).
    async fn save(&self, queue_root: &Path) {
        let _one_writer = self.writing.lock().await;
        let file = CardsFile {
            cards: lock(&self.cards).clone(),
        };
        crate::bot::kept::write(queue_root.join(CARDS_FILE), file, "group cards").await;
    }
}
