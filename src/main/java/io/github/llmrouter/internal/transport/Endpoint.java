package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.ChatChunk;
import io.github.llmrouter.api.ChatResponse;
import io.github.llmrouter.api.CompletionResponse;
import io.github.llmrouter.api.EmbeddingResponse;
import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One OpenAI-compatible operation the client calls: its name in routing events, whether it
 * streams, and how its answer is read. Every call sends a {@link RawRequest}; a typed operation
 * builds it ({@link #request}: its path, its request object as JSON) and binds the answer (or each
 * streamed chunk) to its type, checking what a complete answer must hold: an answer that binds
 * but lacks it ({@code null}, {@code {}}, a chat completion without {@code choices}) is a
 * malformed answer, failed over like any other replica failure, never returned to the caller. A
 * raw operation ({@link #raw}) hands the answer back as a {@link RawResponse}. Immutable
 * constants.
 *
 * @param <T> the answer type, or the chunk type of a streaming operation
 */
public final class Endpoint<T> {
  private static final String CHAT_PATH = "/v1/chat/completions";
  private static final String COMPLETIONS_PATH = "/v1/completions";

  /** A chat completion; holds at least one choice. */
  public static final Endpoint<ChatResponse> CHAT = new Endpoint<>("chat", CHAT_PATH, false,
      ChatResponse.class, r -> r.choices().isEmpty() ? "no choices" : null);
  /** A streamed chat completion. */
  public static final Endpoint<ChatChunk> CHAT_STREAM = new Endpoint<>("chat.stream", CHAT_PATH,
      true, ChatChunk.class, c -> null);
  /** A text completion; holds at least one choice. */
  public static final Endpoint<CompletionResponse> COMPLETION = new Endpoint<>("completion",
      COMPLETIONS_PATH, false, CompletionResponse.class,
      r -> r.choices().isEmpty() ? "no choices" : null);
  /** A streamed text completion. */
  public static final Endpoint<CompletionResponse> COMPLETION_STREAM = new Endpoint<>(
      "completion.stream", COMPLETIONS_PATH, true, CompletionResponse.class, c -> null);
  /** Embeddings; hold at least one vector. */
  public static final Endpoint<EmbeddingResponse> EMBEDDINGS = new Endpoint<>("embeddings",
      "/v1/embeddings", false, EmbeddingResponse.class, r -> r.data().isEmpty() ? "no data" : null);

  // Raw operations, named as their typed counterparts so that meters and events group them.
  private static final Endpoint<RawResponse> RAW_CHAT = named("chat", false);
  private static final Endpoint<RawResponse> RAW_CHAT_STREAM = named("chat.stream", true);
  private static final Endpoint<RawResponse> RAW_COMPLETION = named("completion", false);
  private static final Endpoint<RawResponse> RAW_COMPLETION_STREAM =
      named("completion.stream", true);
  private static final Endpoint<RawResponse> RAW_EMBEDDINGS = named("embeddings", false);
  private static final Endpoint<RawResponse> RAW_RESPONSES = named("responses", false);
  private static final Endpoint<RawResponse> RAW_RESPONSES_STREAM = named("responses.stream", true);
  /** Any other path: one name, so that paths with ids in them do not multiply meters. */
  private static final Endpoint<RawResponse> RAW_OTHER = named("http", false);
  private static final Endpoint<RawResponse> RAW_OTHER_STREAM = named("http.stream", true);

  private final String operation;
  private final @Nullable String path;
  private final boolean stream;
  private final Class<T> type;
  private final Function<T, @Nullable String> defect;

  private Endpoint(String operation, @Nullable String path, boolean stream, Class<T> type,
      Function<T, @Nullable String> defect) {
    this.operation = operation;
    this.path = path;
    this.stream = stream;
    this.type = type;
    this.defect = defect;
  }

  private static Endpoint<RawResponse> named(String operation, boolean stream) {
    return new Endpoint<>(operation, null, stream, RawResponse.class, r -> null);
  }

  /**
   * The raw operation a request to {@code path} is: {@code chat}, {@code completion}, {@code
   * embeddings}, {@code responses} by the path's end (any version prefix), else {@code http}.
   *
   * @param path the request's path, with its query string if any
   * @param stream whether the request asks for an event stream
   * @return a constant
   */
  public static Endpoint<RawResponse> raw(String path, boolean stream) {
    int query = path.indexOf('?');
    String p = query < 0 ? path : path.substring(0, query);
    if (p.endsWith("/")) p = p.substring(0, p.length() - 1);
    if (p.endsWith("/chat/completions")) return stream ? RAW_CHAT_STREAM : RAW_CHAT;
    if (p.endsWith("/completions")) return stream ? RAW_COMPLETION_STREAM : RAW_COMPLETION;
    if (p.endsWith("/embeddings")) return RAW_EMBEDDINGS;
    if (p.endsWith("/responses")) return stream ? RAW_RESPONSES_STREAM : RAW_RESPONSES;
    return stream ? RAW_OTHER_STREAM : RAW_OTHER;
  }

  /** {@return the operation's name in routing events: {@code chat}, {@code chat.stream}, ...} */
  public String operation() {
    return operation;
  }

  /**
   * The request a typed operation sends: a {@code POST} to its path of {@code request} as JSON,
   * with the stream flags for a streaming operation.
   *
   * @param request an {@code api} request object
   * @param hedgeable what the caller said of the request's {@code hedgeable}
   * @return the request
   * @throws io.github.llmrouter.api.LlmException if the request cannot be written as JSON
   * @throws IllegalStateException for a raw operation, which sends the caller's request
   */
  public RawRequest request(Object request, boolean hedgeable) {
    if (path == null) throw new IllegalStateException(operation + " sends the caller's request");
    return RawRequest.post(path, Json.requestBody(request, stream)).hedgeable(hedgeable).build();
  }

  /**
   * {@return whether a call of this operation may be hedged: chat, completions and embeddings,
   * typed or raw, which an engine answers without keeping anything; not the Responses API (it may
   * store what it answers) nor any other path}
   */
  public boolean hedgeable() {
    return !operation.startsWith("responses") && !operation.startsWith("http");
  }

  /** {@return whether the answer is handed back as a {@link RawResponse}} */
  boolean raw() {
    return path == null;
  }

  /** {@return whether the answer is an event stream, read by the caller after the call returns} */
  public boolean streaming() {
    return stream;
  }

  Class<T> type() {
    return type;
  }

  /** What {@code value} lacks for this operation: a phrase for an error message, or null. */
  @Nullable String defect(T value) {
    return defect.apply(value);
  }

  @Override
  public String toString() {
    return path == null ? operation : operation + " " + path;
  }
}
