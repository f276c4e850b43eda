//! Groups in the fake, driven by a real `teloxide::Bot`: topics, members' taps, Telegram's checks.

#![allow(clippy::unwrap_used)]

use teloxide::prelude::*;
use teloxide::types::{
    InlineKeyboardButton, InlineKeyboardMarkup, MessageId, ThreadId, UpdateKind,
};
use teloxide::{ApiError, RequestError};

use super::tests::setup;

const GROUP: i64 = -1_001_234_567_890;
const PLAIN: i64 = -1_009_999;
const ALICE: i64 = 42;
const BOB: i64 = 43;

#[tokio::test]
async fn messages_go_to_forum_topics_and_taps_come_from_the_group() {
    let (fake, bot) = setup().await;
    fake.add_group(GROUP, "Team", true, ALICE);
    fake.add_member(GROUP, BOB);
    let infra = fake.create_topic(GROUP, "Infra", ALICE).unwrap();

    // The bot learns of the group from a my_chat_member update.
    let updates = bot.get_updates().await.unwrap();
    let UpdateKind::MyChatMember(added) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind);
    };
    assert_eq!(added.chat.id, ChatId(GROUP));
    assert!(added.chat.is_supergroup());
    assert!(added.new_chat_member.is_present());

    let keyboard = InlineKeyboardMarkup::new([[InlineKeyboardButton::callback("A. Yes", "a:1")]]);
    let sent = bot
        .send_message(ChatId(GROUP), "card")
        .message_thread_id(ThreadId(MessageId(infra)))
        .reply_markup(keyboard)
        .await
        .unwrap();
    assert_eq!(sent.thread_id, Some(ThreadId(MessageId(infra))));
    assert!(sent.is_topic_message);
    assert_eq!(fake.topic_messages(GROUP, Some(infra)).len(), 1);
    // The General topic (1) is reached without a thread id; a thread that is no topic is refused.
    for thread in [1, 999] {
        let refused = bot
            .send_message(ChatId(GROUP), "x")
            .message_thread_id(ThreadId(MessageId(thread)))
            .await;
        assert!(
            matches!(&refused, Err(RequestError::Api(e)) if e.to_string().contains("message thread not found")),
            "{refused:?}"
        );
    }
    bot.send_message(ChatId(GROUP), "general").await.unwrap();
    assert_eq!(fake.topic_messages(GROUP, None).len(), 1);

    // Bob taps in the group: the callback's message is the group's, in its topic.
    let offset = updates[0].id.0 as i32 + 1;
    let qid = fake.tap_in_group(GROUP, BOB, sent.id.0, "a:1").unwrap();
    let updates = bot.get_updates().offset(offset).await.unwrap();
    let UpdateKind::CallbackQuery(q) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind);
    };
    assert_eq!(q.id.0, qid);
    assert_eq!(q.from.id.0, BOB as u64);
    let message = q.regular_message().unwrap();
    assert_eq!(message.chat.id, ChatId(GROUP));
    assert_eq!(message.thread_id, Some(ThreadId(MessageId(infra))));
    // Only members tap; a member writes in a topic.
    assert!(fake.tap_in_group(GROUP, 7, sent.id.0, "a:1").is_err());
    fake.send_group_text(GROUP, Some(infra), ALICE, "hello")
        .unwrap();
    let updates = bot
        .get_updates()
        .offset(updates[0].id.0 as i32 + 1)
        .await
        .unwrap();
    let UpdateKind::Message(m) = &updates[0].kind else {
        panic!("{:?}", updates[0].kind);
    };
    assert_eq!(
        (m.chat.id, m.thread_id),
        (ChatId(GROUP), Some(ThreadId(MessageId(infra))))
    );
}

#[tokio::test]
async fn threads_need_a_forum_and_a_kicked_bot_is_forbidden() {
    let (fake, bot) = setup().await;
    fake.add_group(PLAIN, "Plain", false, ALICE);
    assert!(fake.create_topic(PLAIN, "T", ALICE).is_err());
    let refused = bot
        .send_message(ChatId(PLAIN), "x")
        .message_thread_id(ThreadId(MessageId(2)))
        .await;
    assert!(matches!(refused, Err(RequestError::Api(_))), "{refused:?}");
    let unknown = bot.send_message(ChatId(-5), "x").await;
    assert!(
        matches!(&unknown, Err(RequestError::Api(e)) if e.to_string().contains("chat not found")),
        "{unknown:?}"
    );
    let sent = bot.send_message(ChatId(PLAIN), "card").await.unwrap();
    fake.kick_bot(PLAIN, ALICE);
    let send = bot.send_message(ChatId(PLAIN), "again").await;
    assert!(
        matches!(
            send,
            Err(RequestError::Api(ApiError::BotKickedFromSupergroup))
        ),
        "{send:?}"
    );
    let edit = bot
        .edit_message_text(ChatId(PLAIN), sent.id, "edited")
        .await;
    assert!(
        matches!(
            edit,
            Err(RequestError::Api(ApiError::BotKickedFromSupergroup))
        ),
        "{edit:?}"
    );
    // Private chats are untouched.
    bot.send_message(ChatId(ALICE), "still here").await.unwrap();
}
