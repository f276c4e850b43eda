//! Formatting entities as the Bot API reports them (offsets and lengths in UTF-16 units).

/// What a successful parse yields: the plain text and its entities (offsets in UTF-16 units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub plain: String,
    pub entities: Vec<Entity>,
}

/// One formatting entity in the plain text, positioned like the Bot API does (UTF-16 units).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity {
    pub kind: EntityKind,
    pub offset: usize,
    pub length: usize,
}

/// The entity types MarkdownV2 can produce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntityKind {
    Bold,
    Italic,
    Underline,
    Strikethrough,
    Spoiler,
    Code,
    Pre { language: Option<String> },
    TextLink { url: String },
    CustomEmoji { id: String },
    Blockquote,
    ExpandableBlockquote,
}

impl EntityKind {
    /// The Bot API `type` string of this entity.
    #[must_use]
    pub fn api_name(&self) -> &'static str {
        match self {
            Self::Bold => "bold",
            Self::Italic => "italic",
            Self::Underline => "underline",
            Self::Strikethrough => "strikethrough",
            Self::Spoiler => "spoiler",
            Self::Code => "code",
            Self::Pre { .. } => "pre",
            Self::TextLink { .. } => "text_link",
            Self::CustomEmoji { .. } => "custom_emoji",
            Self::Blockquote => "blockquote",
            Self::ExpandableBlockquote => "expandable_blockquote",
        }
    }
}
