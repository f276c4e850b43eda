//! HTTP side of the fake: the axum router, body parsing, the Telegram envelope, fault injection,
//! and a listener whose connections a handler can cut (for [`Fault::DropConnection`]).

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{
    ConnectInfo, DefaultBodyLimit, FromRequest, Multipart, Path, Query, Request,
    State as AxumState, connect_info::Connected,
};
use axum::http::{StatusCode, header::CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use axum::serve::{IncomingStream, Listener};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::time::Instant;

use super::methods::{self, ApiFailure, int_param};
use super::state::{Call, Fault, Files, MAX_UPLOAD_BYTES, State, Upload};

const TERMINATED: &str = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running";

/// State shared by the server and every [`super::FakeBot`] handle.
#[derive(Default)]
pub(crate) struct Shared {
    state: Mutex<State>,
    changed: Notify,
}

impl Shared {
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Mutates the state and wakes every waiter.
    pub fn update<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        let result = f(&mut self.lock());
        self.changed.notify_waiters();
        result
    }

    /// Waits until `pred` holds (checked on every state change) or `deadline`; returns whether it held.
    /// `pred` is called without the lock held, so it may lock (or call the handle's accessors).
    pub async fn wait_until(&self, mut pred: impl FnMut() -> bool, deadline: Instant) -> bool {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if pred() {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return pred();
            }
        }
    }
}

/// Serves the fake Bot API on `listener` until the task is aborted.
pub(crate) async fn serve(listener: TcpListener, shared: Arc<Shared>) -> io::Result<()> {
    let router = Router::new()
        .route("/{token}/{method}", any(handle))
        .fallback(|| async { envelope(Err(ApiFailure::new(404, "Not Found"))) })
        // Room for Telegram's 50 MB upload limit, so the method can refuse bigger files itself.
        .layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES + 1024 * 1024))
        .with_state(shared);
    let make_service = router.into_make_service_with_connect_info::<ConnectionKill>();
    axum::serve(KillableListener(listener), make_service).await
}

async fn handle(
    AxumState(shared): AxumState<Arc<Shared>>,
    ConnectInfo(kill): ConnectInfo<ConnectionKill>,
    Path((token, name)): Path<(String, String)>,
    request: Request,
) -> Response {
    let (params, files) = params(request).await;
    let method = methods::canonical(&name);
    let fault = shared.update(|state| {
        let logged = method.map_or_else(|| name.clone(), str::to_owned);
        let fault = state
            .faults
            .get_mut(&logged)
            .and_then(|queue| queue.pop_front());
        state.calls.push(Call {
            method: logged,
            params: params.clone(),
            at: SystemTime::now(),
        });
        fault
    });
    if !token.starts_with("bot") {
        return envelope(Err(ApiFailure::new(404, "Not Found")));
    }
    match fault {
        None => envelope(process(&shared, method, &params, &files).await),
        Some(Fault::TooManyRequests { retry_after_secs }) => envelope(Err(ApiFailure {
            code: 429,
            description: format!("Too Many Requests: retry after {retry_after_secs}"),
            retry_after: Some(retry_after_secs),
        })),
        Some(Fault::ServerError(code)) => {
            let description = StatusCode::from_u16(code)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("Internal Server Error");
            envelope(Err(ApiFailure::new(code, description)))
        }
        Some(Fault::Conflict) => envelope(Err(ApiFailure::new(409, TERMINATED))),
        Some(Fault::Unauthorized) => envelope(Err(ApiFailure::new(401, "Unauthorized"))),
        Some(Fault::DropConnection) => {
            kill.0.store(true, Ordering::SeqCst);
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
        Some(Fault::Stall(delay)) => {
            let result = process(&shared, method, &params, &files).await;
            tokio::time::sleep(delay).await;
            envelope(result)
        }
    }
}

async fn process(
    shared: &Shared,
    method: Option<&'static str>,
    params: &Value,
    files: &Files,
) -> Result<Value, ApiFailure> {
    match method {
        None => Err(ApiFailure::new(404, "Not Found")),
        Some("getUpdates") => get_updates(shared, params).await,
        Some(method) => shared.update(|state| methods::handle(state, method, params, files)),
    }
}

/// Long polling with Telegram's offset semantics; a newer getUpdates ends this one with 409.
async fn get_updates(shared: &Shared, params: &Value) -> Result<Value, ApiFailure> {
    let offset = int_param(params, "offset").unwrap_or(0);
    let limit =
        usize::try_from(int_param(params, "limit").unwrap_or(100).clamp(1, 100)).unwrap_or(100);
    let timeout =
        u64::try_from(int_param(params, "timeout").unwrap_or(0).clamp(0, 3600)).unwrap_or(0);
    let generation = shared.update(|state| {
        if offset > 0 {
            state.updates.retain(|(id, _)| i64::from(*id) >= offset);
        } else if offset < 0 {
            let keep = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
            while state.updates.len() > keep {
                state.updates.pop_front();
            }
        }
        state.poll_generation += 1;
        state.poll_generation
    });
    let deadline = Instant::now() + Duration::from_secs(timeout);
    shared
        .wait_until(
            || {
                let state = shared.lock();
                !state.updates.is_empty() || state.poll_generation != generation
            },
            deadline,
        )
        .await;
    let state = shared.lock();
    if state.poll_generation != generation {
        return Err(ApiFailure::new(409, TERMINATED));
    }
    Ok(state
        .updates
        .iter()
        .take(limit)
        .map(|(_, update)| update.clone())
        .collect())
}

/// Request parameters from the query string and a JSON, form or multipart body, merged into one
/// object, and the files of a multipart body (in the params as `{"file_name", "size"}`).
async fn params(request: Request) -> (Value, Files) {
    let mut files = Files::new();
    let mut params = Map::new();
    if let Ok(Query(query)) = Query::<HashMap<String, String>>::try_from_uri(request.uri()) {
        params.extend(query.into_iter().map(|(k, v)| (k, Value::String(v))));
    }
    let content_type = request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if content_type.starts_with("multipart/form-data") {
        if let Ok(mut multipart) = Multipart::from_request(request, &()).await {
            while let Ok(Some(field)) = multipart.next_field().await {
                let name = field.name().unwrap_or_default().to_owned();
                let file_name = field.file_name().map(str::to_owned);
                let content_type = field.content_type().map(str::to_owned);
                let Ok(bytes) = field.bytes().await else {
                    break;
                };
                if file_name.is_some() {
                    let size = bytes.len();
                    params.insert(name.clone(), json!({"file_name": file_name, "size": size}));
                    let upload = Upload {
                        file_name,
                        content_type,
                        bytes: bytes.to_vec(),
                    };
                    files.insert(name, upload);
                } else {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    params.insert(name, Value::String(text));
                }
            }
        }
    } else if content_type.starts_with("application/x-www-form-urlencoded") {
        if let Ok(axum::Form(form)) =
            axum::Form::<HashMap<String, String>>::from_request(request, &()).await
        {
            params.extend(form.into_iter().map(|(k, v)| (k, Value::String(v))));
        }
    } else if let Ok(body) = Bytes::from_request(request, &()).await
        && let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&body)
    {
        params.extend(body);
    }
    (Value::Object(params), files)
}

/// Telegram's response envelope.
fn envelope(result: Result<Value, ApiFailure>) -> Response {
    match result {
        Ok(result) => axum::Json(json!({"ok": true, "result": result})).into_response(),
        Err(failure) => {
            let mut body = json!({"ok": false, "error_code": failure.code, "description": failure.description});
            if let Some(retry_after) = failure.retry_after {
                body["parameters"] = json!({ "retry_after": retry_after });
            }
            let status = StatusCode::from_u16(failure.code).unwrap_or(StatusCode::BAD_REQUEST);
            (status, axum::Json(body)).into_response()
        }
    }
}

/// A TCP listener whose connections carry a kill switch.
struct KillableListener(TcpListener);

/// A connection that, once killed, reads EOF and fails every write, so hyper drops it unanswered.
pub(crate) struct KillableStream {
    inner: TcpStream,
    killed: Arc<AtomicBool>,
}

/// The kill switch of the connection a request arrived on.
#[derive(Clone)]
struct ConnectionKill(Arc<AtomicBool>);

impl Listener for KillableListener {
    type Io = KillableStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.0.accept().await {
                Ok((inner, addr)) => {
                    return (
                        KillableStream {
                            inner,
                            killed: Arc::default(),
                        },
                        addr,
                    );
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

impl Connected<IncomingStream<'_, KillableListener>> for ConnectionKill {
    fn connect_info(stream: IncomingStream<'_, KillableListener>) -> Self {
        Self(Arc::clone(&stream.io().killed))
    }
}

impl KillableStream {
    fn killed(&self) -> bool {
        self.killed.load(Ordering::SeqCst)
    }
}

impl AsyncRead for KillableStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.killed() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for KillableStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.killed() {
            return Poll::Ready(Err(io::ErrorKind::ConnectionAborted.into()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.killed() {
            return Poll::Ready(Err(io::ErrorKind::ConnectionAborted.into()));
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}
