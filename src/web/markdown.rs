//! Agents' Markdown as safe HTML: raw HTML is shown as text, links keep only http and https targets (others
//! become their text), images become their alt text (the dashboard loads nothing from elsewhere).

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// `source` rendered to HTML that can be placed in a page as is.
#[must_use]
pub fn to_html(source: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    // Whether each open link is kept (its end tag goes with it).
    let mut links: Vec<bool> = Vec::new();
    let events = Parser::new_ext(source, options).filter_map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Some(Event::Text(raw)),
        Event::Start(Tag::Link { ref dest_url, .. }) => {
            let lower = dest_url.trim().to_ascii_lowercase();
            let keep = lower.starts_with("http://") || lower.starts_with("https://");
            links.push(keep);
            keep.then_some(event)
        }
        Event::End(TagEnd::Link) => links.pop().unwrap_or(false).then_some(event),
        Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => None,
        other => Some(other),
    });
    let mut html = String::new();
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

#[cfg(test)]
mod tests {
    use super::to_html;

    #[test]
    fn raw_html_is_text() {
        let html =
            to_html("Hi <script>alert(1)</script> <b onmouseover=x>b</b>\n\n<div>block</div>");
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<b "), "{html}");
        assert!(!html.contains("<div>"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn only_http_links() {
        let html = to_html(
            "[ok](https://example.com/a?b=1&c=2) [bad](javascript:alert(1)) [file](file:///etc)",
        );
        assert!(
            html.contains(r#"<a href="https://example.com/a?b=1&amp;c=2">ok</a>"#),
            "{html}"
        );
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("file:"), "{html}");
        assert!(html.contains("bad") && html.contains("file"), "{html}");
    }

    #[test]
    fn images_are_alt_text() {
        let html = to_html("![a cat](https://example.com/cat.png)");
        assert!(!html.contains("<img"), "{html}");
        assert!(html.contains("a cat"), "{html}");
    }

    #[test]
    fn formatting_survives() {
        let html = to_html(
            "**bold** *it* ~~gone~~ `code`\n\n```rust\nfn x() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |",
        );
        for tag in ["<strong>", "<em>", "<del>", "<code>", "<pre>", "<table>"] {
            assert!(html.contains(tag), "{tag} in {html}");
        }
    }
}
