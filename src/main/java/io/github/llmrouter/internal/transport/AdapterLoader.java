package io.github.llmrouter.internal.transport;

import static java.util.Objects.requireNonNull;

import io.github.llmrouter.replica.Replica;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.node.ObjectNode;

/**
 * Loads and unloads LoRA adapters on replicas through vLLM's runtime endpoints ({@code POST
 * /v1/load_lora_adapter} with {@code lora_name} and {@code lora_path}, {@code POST
 * /v1/unload_lora_adapter} with {@code lora_name}; the server must run with {@code
 * VLLM_ALLOW_RUNTIME_LORA_UPDATING=True}), on an OkHttp dispatcher of its own so that they never
 * take the request limit's slots, each within {@link #TIMEOUT}. Thread-safe; never throws into
 * its caller: every outcome, a failed exchange included, completes the returned future.
 */
public final class AdapterLoader implements AutoCloseable {
  /** The whole-call timeout of one load or unload: {@value #TIMEOUT_SECONDS} s. */
  public static final Duration TIMEOUT = Duration.ofSeconds(AdapterLoader.TIMEOUT_SECONDS);
  static final int TIMEOUT_SECONDS = 30;
  private static final MediaType JSON = MediaType.get("application/json");

  /** What became of a load or an unload. */
  public enum Outcome {
    /** Done as asked. */
    DONE,
    /** Already so: the adapter was loaded (400 "already been loaded"), or was not (404). */
    ALREADY,
    /** The replica refused (another status), or could not be reached in time. */
    FAILED
  }

  private final OkHttpClient http;
  private final @Nullable String authorization;

  /**
   * A loader over {@code base}'s connections.
   *
   * @param apiKey sent as a bearer token, as with requests
   */
  public AdapterLoader(OkHttpClient base, @Nullable String apiKey) {
    this.http = requireNonNull(base, "base").newBuilder()
        .dispatcher(new Dispatcher(base.dispatcher().executorService()))
        .callTimeout(TIMEOUT).readTimeout(TIMEOUT).build();
    this.authorization = apiKey == null ? null : "Bearer " + apiKey;
  }

  /** Loads {@code name} from {@code path} on {@code replica}. */
  public CompletableFuture<Outcome> load(Replica replica, String name, String path) {
    ObjectNode body = Json.MAPPER.createObjectNode().put("lora_name", name).put("lora_path", path);
    return post(replica, "/v1/load_lora_adapter", body, 400);
  }

  /** Unloads {@code name} from {@code replica}. */
  public CompletableFuture<Outcome> unload(Replica replica, String name) {
    ObjectNode body = Json.MAPPER.createObjectNode().put("lora_name", name);
    return post(replica, "/v1/unload_lora_adapter", body, 404);
  }

  /**
   * Posts {@code body}; {@code alreadyStatus} is the status that says it was already so (vLLM's
   * answer to loading a loaded adapter, or unloading an absent one).
   */
  private CompletableFuture<Outcome> post(Replica replica, String path, ObjectNode body,
      int alreadyStatus) {
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    Request.Builder b = new Request.Builder().url(replica.url(path))
        .post(RequestBody.create(Json.MAPPER.writeValueAsString(body), JSON));
    if (authorization != null) b.header("Authorization", authorization);
    for (Map.Entry<String, String> h : replica.headers().entrySet()) {
      b.header(h.getKey(), h.getValue());
    }
    http.newCall(b.build()).enqueue(new Callback() {
      @Override
      public void onResponse(Call call, Response response) {
        try (response) {
          int code = response.code();
          done.complete(response.isSuccessful() ? Outcome.DONE
              : code == alreadyStatus && mentionsAlready(response, alreadyStatus) ? Outcome.ALREADY
              : Outcome.FAILED);
        } catch (RuntimeException e) {
          done.complete(Outcome.FAILED);
        }
      }

      @Override
      public void onFailure(Call call, IOException e) {
        done.complete(Outcome.FAILED);
      }
    });
    return done;
  }

  /**
   * Whether a 400 says the adapter is already loaded (a 400 may also be a malformed request); a
   * 404 to an unload always means it is not there.
   */
  private static boolean mentionsAlready(Response response, int status) {
    if (status == 404) return true;
    try {
      String text = response.peekBody(4096).string();
      return text.contains("already");
    } catch (IOException e) {
      return false;
    }
  }

  /** Cancels every load and unload in flight. */
  @Override
  public void close() {
    http.dispatcher().cancelAll();
  }
}
