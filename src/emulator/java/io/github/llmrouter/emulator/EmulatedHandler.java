package io.github.llmrouter.emulator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.github.llmrouter.emulator.EmulatedEngine.Abort;
import io.github.llmrouter.emulator.EmulatedFaults.Fault;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The HTTP face of an {@link EmulatedReplica}: OpenAI-compatible JSON and SSE in the shapes vLLM
 * produces, unknown request fields ignored, faults applied before anything else.
 */
final class EmulatedHandler implements HttpHandler {
  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final int EMBEDDING_DIMENSIONS = 8;
  private static final String OWNER = "llm-router-emulated";

  private final EmulatedEngine engine;
  private final EmulatedFaults faults;
  private final AtomicLong sequence = new AtomicLong();

  EmulatedHandler(EmulatedEngine engine, EmulatedFaults faults) {
    this.engine = engine;
    this.faults = faults;
  }

  /** The OpenAI-compatible endpoints that run inference, and so take faults. */
  private enum Api { CHAT, COMPLETIONS, EMBEDDINGS }

  /** A client mistake, answered with 400 and its message. */
  private static final class BadRequest extends RuntimeException {
    BadRequest(String message) {
      super(message, null, false, false);
    }
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try {
      // Stopped: requests that still come in on open connections are never answered.
      if (engine.stopped) engine.awaitClose();
      engine.awaitThawed(); // frozen: read, and left unanswered until thawed
      route(ex);
      ex.close();
    } catch (Abort | IOException e) {
      // Propagate without closing the exchange: the server then drops the connection as is.
      throw e;
    } catch (RuntimeException e) {
      if (ex.getResponseCode() != -1) throw e;
      sendError(ex, 500, "emulated replica failed: " + e, null);
      ex.close();
    }
  }

  private void route(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getPath();
    while (path.length() > 1 && path.endsWith("/")) path = path.substring(0, path.length() - 1);
    String method = ex.getRequestMethod();
    switch (path) {
      case "/v1/chat/completions" -> post(ex, method, Api.CHAT);
      case "/v1/completions" -> post(ex, method, Api.COMPLETIONS);
      case "/v1/embeddings" -> post(ex, method, Api.EMBEDDINGS);
      case "/v1/load_lora_adapter", "/v1/unload_lora_adapter" -> {
        EmulatedLoras loras = engine.loras;
        if (loras == null) {
          sendError(ex, 404, "no route for " + method + " " + path, null);
        } else {
          loraUpdate(ex, method, loras, path.equals("/v1/load_lora_adapter"));
        }
      }
      case "/v1/models" -> {
        engine.modelsRequests.increment();
        if (!get(ex, method)) return;
        int status = faults.currentModelsStatus();
        if (status == 200) models(ex);
        else sendError(ex, status, "emulated failure " + status, null);
      }
      case "/health" -> {
        engine.healthRequests.increment();
        if (get(ex, method)) {
          ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
          ex.sendResponseHeaders(faults.currentHealthStatus(), -1);
        }
      }
      case "/metrics" -> {
        engine.metricsRequests.increment();
        if (get(ex, method)) {
          byte[] body = engine.metricsText().getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
        }
      }
      default -> sendError(ex, 404, "no route for " + method + " " + path, null);
    }
  }

  private boolean get(HttpExchange ex, String method) throws IOException {
    if (method.equals("GET")) return true;
    ex.getRequestBody().readAllBytes();
    ex.getResponseHeaders().set("Allow", "GET");
    sendError(ex, 405, "method " + method + " not allowed", null);
    return false;
  }

  private void post(HttpExchange ex, String method, Api api) throws IOException {
    switch (api) {
      case CHAT -> engine.chatRequests.increment();
      case COMPLETIONS -> engine.completionRequests.increment();
      case EMBEDDINGS -> engine.embeddingRequests.increment();
    }
    byte[] body = ex.getRequestBody().readAllBytes();
    if (!method.equals("POST")) {
      ex.getResponseHeaders().set("Allow", "POST");
      sendError(ex, 405, "method " + method + " not allowed", null);
      return;
    }
    Fault fault = faults.takeNext();
    if (fault != null) {
      switch (fault.kind()) {
        case DELAY -> engine.pause(fault.delay().toNanos());
        case RESET -> throw new Abort();
        case HANG -> engine.awaitClose();
        case STALL -> stall(ex, body);
        case FAIL -> {
          sendError(ex, fault.status(), "emulated failure " + fault.status(), fault.retryAfter());
          return;
        }
        default -> throw new IllegalStateException("unexpected fault " + fault.kind());
      }
    }
    try {
      JsonNode request;
      try {
        request = JSON.readTree(body);
      } catch (JacksonException e) {
        throw new BadRequest("request body is not valid JSON");
      }
      if (request == null || !request.isObject()) {
        throw new BadRequest("request body must be a JSON object");
      }
      List<String> served = engine.models;
      String model = request.path("model").isString()
          ? request.path("model").stringValue() : served.get(0);
      EmulatedLoras loras = engine.loras;
      boolean adapter = loras != null && !served.contains(model) && loras.start(model);
      if (engine.rejectsUnknownModels && !served.contains(model) && !adapter) {
        sendError(ex, 404, "The model `" + model + "` does not exist.", null);
        return;
      }
      engine.use(model);
      try {
        if (api == Api.EMBEDDINGS) {
          embeddings(ex, request, model);
        } else {
          generate(ex, request, model, api);
        }
      } finally {
        if (adapter) loras.end(model);
      }
    } catch (BadRequest e) {
      sendError(ex, 400, String.valueOf(e.getMessage()), null);
    }
  }

  /** A wedged engine: a stream's headers, then nothing until the replica closes. */
  private void stall(HttpExchange ex, byte[] body) throws IOException {
    JsonNode request;
    try {
      request = JSON.readTree(body);
    } catch (JacksonException e) {
      request = null;
    }
    if (request != null && request.path("stream").asBoolean(false)) {
      ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
      ex.sendResponseHeaders(200, 0);
      ex.getResponseBody().flush();
    }
    engine.awaitClose();
  }

  private void generate(HttpExchange ex, JsonNode request, String model, Api api)
      throws IOException {
    String prompt = api == Api.CHAT ? chatPrompt(request) : completionPrompt(request);
    boolean limited =
        request.hasNonNull("max_tokens") || request.hasNonNull("max_completion_tokens");
    int maxTokens = maxTokens(request);
    boolean stream = request.path("stream").asBoolean(false);
    boolean includeUsage = request.path("stream_options").path("include_usage").asBoolean(false);
    Fault streamBreak = stream ? faults.takeStreamBreak() : null;
    String loadFormat = ex.getRequestHeaders().getFirst("endpoint-load-metrics-format");
    boolean loadHeader = "TEXT".equalsIgnoreCase(loadFormat) || "JSON".equalsIgnoreCase(loadFormat);

    try (EmulatedEngine.Slot slot = engine.enterBatch()) {
      int cached = engine.prefill(model, prompt);
      String[] tokens = api == Api.CHAT ? continued(request, maxTokens) : null;
      if (tokens == null) tokens = engine.output(prompt, maxTokens);
      String finishReason = limited ? "length" : "stop";
      Response r = new Response(api, idPrefix(api) + engine.id + "-" + sequence.incrementAndGet(),
          System.currentTimeMillis() / 1000, model, usage(prompt.length(), cached, tokens.length));
      if (loadHeader) {
        ex.getResponseHeaders().set("endpoint-load-metrics",
            "JSON".equalsIgnoreCase(loadFormat) ? engine.loadMetricsJson() : engine.loadMetricsHeader());
      }
      if (stream) {
        stream(ex, r, tokens, finishReason, includeUsage,
            streamBreak == null ? -1 : streamBreak.chunks(), slot);
      } else {
        engine.pause(engine.decodeNanos * Math.max(0, tokens.length - 1));
        ObjectNode body = r.whole(String.join("", tokens), finishReason);
        engine.finish(slot);
        sendJson(ex, 200, body);
      }
    }
  }

  private void stream(HttpExchange ex, Response r, String[] tokens, String finishReason,
      boolean includeUsage, int breakAfter, EmulatedEngine.Slot slot) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
    ex.getResponseHeaders().set("Cache-Control", "no-cache");
    ex.sendResponseHeaders(200, 0); // chunked
    OutputStream out = ex.getResponseBody();
    // Put the status line and headers on the wire now, as an SSE server does: since JDK 23 the
    // JDK server only buffers them here (it no longer flushes after sendResponseHeaders), so a
    // stream broken before its first event would otherwise close the connection with the
    // headers still unsent, and the client would see no response at all instead of a 200.
    out.flush();
    int sent = 0;
    // The first event carries the first token and, for chat, the assistant role.
    int events = Math.max(1, tokens.length);
    long next = System.nanoTime();
    for (int i = 0; i < events; i++) {
      if (i > 0) engine.pauseUntil(next += engine.decodeNanos); // a steady decode rate
      sent = event(out, r.chunk(tokens.length == 0 ? "" : tokens[i], i == 0, null), sent,
          breakAfter);
    }
    sent = event(out, r.chunk(null, false, finishReason), sent, breakAfter);
    if (includeUsage) sent = event(out, r.usageChunk(), sent, breakAfter);
    if (breakAfter >= 0) {
      // Asked to break after more events than the stream has: still withhold [DONE].
      throw new Abort();
    }
    engine.finish(slot);
    out.write("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  private static int event(OutputStream out, ObjectNode chunk, int sent, int breakAfter)
      throws IOException {
    if (sent == breakAfter) throw new Abort();
    String event = "data: " + JSON.writeValueAsString(chunk) + "\n\n";
    out.write(event.getBytes(StandardCharsets.UTF_8));
    out.flush();
    return sent + 1;
  }

  private void embeddings(HttpExchange ex, JsonNode request, String model) throws IOException {
    JsonNode input = request.get("input");
    List<String> texts = new ArrayList<>();
    if (input != null && input.isString()) {
      texts.add(input.stringValue());
    } else if (input != null && input.isArray() && !input.isEmpty()) {
      // Token-id arrays are embedded by their JSON text: deterministic is all that matters here.
      for (JsonNode item : input) texts.add(item.isString() ? item.stringValue() : item.toString());
    } else {
      throw new BadRequest("'input' must be a string or a non-empty array");
    }
    engine.overhead();
    ObjectNode body = JSON.createObjectNode();
    body.put("object", "list");
    ArrayNode data = body.putArray("data");
    int chars = 0;
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i);
      chars += text.length();
      ObjectNode item = data.addObject();
      item.put("object", "embedding");
      item.put("index", i);
      ArrayNode vector = item.putArray("embedding");
      for (float v : embed(text)) vector.add(v);
    }
    body.put("model", model);
    ObjectNode usage = body.putObject("usage");
    usage.put("prompt_tokens", EmulatedEngine.tokens(chars));
    usage.put("total_tokens", EmulatedEngine.tokens(chars));
    body.put("x_emulated_replica", engine.id);
    engine.completed.increment(); // before the write, so a client that got it sees it counted
    sendJson(ex, 200, body);
  }

  /** A unit vector derived from the text's hash alone: equal texts, equal embeddings. */
  static float[] embed(String text) {
    double[] v = new double[EMBEDDING_DIMENSIONS];
    double norm = 0;
    for (int d = 0; d < v.length; d++) {
      long h = ContentHash.of(text, d + 1);
      v[d] = (h >>> 11) * 0x1.0p-53 * 2 - 1;
      norm += v[d] * v[d];
    }
    norm = Math.sqrt(norm);
    float[] out = new float[v.length];
    for (int d = 0; d < v.length; d++) out[d] = (float) (norm == 0 ? 0 : v[d] / norm);
    return out;
  }

  private void models(HttpExchange ex) throws IOException {
    ObjectNode body = JSON.createObjectNode();
    body.put("object", "list");
    ArrayNode data = body.putArray("data");
    long created = System.currentTimeMillis() / 1000;
    for (String m : engine.models) {
      ObjectNode item = data.addObject();
      item.put("id", m);
      item.put("object", "model");
      item.put("created", created);
      item.put("owned_by", OWNER);
      item.put("root", m);
      item.put("max_model_len", 32768);
      if (engine.maxLoadedModels > 0) {
        item.putObject("status").put("value", engine.isLoaded(m) ? "loaded" : "unloaded");
      }
    }
    EmulatedLoras loras = engine.loras;
    if (loras != null) {
      for (String adapter : loras.names()) {
        ObjectNode item = data.addObject();
        item.put("id", adapter);
        item.put("object", "model");
        item.put("created", created);
        item.put("owned_by", OWNER);
        item.put("root", "/adapters/" + adapter);
        item.put("parent", engine.models.get(0));
      }
    }
    sendJson(ex, 200, body);
  }

  /**
   * vLLM's runtime adapter updates: {@code lora_name} (and, to load, {@code lora_path}) in a JSON
   * body; 200 with a plain-text success line, 400 for a bad body or an adapter already loaded,
   * 404 for one to unload that is not.
   */
  private void loraUpdate(HttpExchange ex, String method, EmulatedLoras loras, boolean load)
      throws IOException {
    byte[] body = ex.getRequestBody().readAllBytes();
    if (!method.equals("POST")) {
      ex.getResponseHeaders().set("Allow", "POST");
      sendError(ex, 405, "method " + method + " not allowed", null);
      return;
    }
    JsonNode request;
    try {
      request = JSON.readTree(body);
    } catch (JacksonException e) {
      request = null;
    }
    String name = request == null ? "" : request.path("lora_name").asString("");
    String path = request == null ? "" : request.path("lora_path").asString("");
    if (name.isEmpty() || (load && path.isEmpty())) {
      sendError(ex, 400, load ? "Both 'lora_name' and 'lora_path' must be provided."
          : "'lora_name' needs to be provided to unload a LoRA adapter.", null);
      return;
    }
    if (load && !loras.register(name, path)) {
      sendError(ex, 400, "The lora adapter '" + name + "' has already been loaded.", null);
      return;
    }
    if (!load && !loras.unregister(name)) {
      sendError(ex, 404, "The lora adapter '" + name + "' cannot be found.", null);
      return;
    }
    byte[] text = ("Success: LoRA adapter '" + name + "' " + (load ? "added" : "removed")
        + " successfully.").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    ex.sendResponseHeaders(200, text.length);
    ex.getResponseBody().write(text);
  }

  /** The chat prompt as the engine sees it: {@code role \n content \n} per message, in order. */
  /**
   * The answer to a chat whose last message is the assistant's partial text, if that text begins
   * this replica's own answer to the messages before it: the rest of that answer, as a server
   * continues a final assistant message; else null (answered as any chat). Without {@code
   * "continue_final_message": true} the partial text is repeated before the continuation, as
   * llama.cpp's server does when it is not asked to continue.
   */
  private String @Nullable [] continued(JsonNode request, int maxTokens) {
    JsonNode messages = request.get("messages");
    if (messages == null || !messages.isArray() || messages.size() < 2) return null;
    JsonNode last = messages.get(messages.size() - 1);
    if (!"assistant".equals(last.path("role").asString("")) || !last.path("content").isString()) {
      return null;
    }
    String partial = last.path("content").stringValue();
    ObjectNode before = (ObjectNode) request.deepCopy();
    ArrayNode earlier = before.putArray("messages");
    for (int i = 0; i < messages.size() - 1; i++) earlier.add(messages.get(i));
    int words = partial.isEmpty() ? 0 : partial.split(" ", -1).length;
    String[] own = engine.output(chatPrompt(before), words + maxTokens);
    StringBuilder said = new StringBuilder();
    int k = 0;
    while (k < own.length && said.length() < partial.length()) said.append(own[k++]);
    if (!said.toString().equals(partial)) return null;
    String[] rest = java.util.Arrays.copyOfRange(own, k, Math.min(own.length, k + maxTokens));
    if (!request.path("continue_final_message").asBoolean(false) && rest.length > 0) {
      rest[0] = partial + rest[0];
    }
    return rest;
  }

  static String chatPrompt(JsonNode request) {
    JsonNode messages = request.get("messages");
    if (messages == null || !messages.isArray() || messages.isEmpty()) {
      throw new BadRequest("'messages' must be a non-empty array");
    }
    StringBuilder s = new StringBuilder();
    for (JsonNode m : messages) {
      if (!m.isObject()) throw new BadRequest("every message must be an object");
      s.append(m.path("role").asString("")).append('\n');
      JsonNode content = m.get("content");
      if (content != null && content.isString()) {
        s.append(content.stringValue());
      } else if (content != null && content.isArray()) {
        // Content parts: only text parts reach the prompt.
        for (JsonNode part : content) {
          if (part.path("text").isString()) s.append(part.path("text").stringValue());
        }
      }
      s.append('\n');
    }
    return s.toString();
  }

  private static String completionPrompt(JsonNode request) {
    JsonNode prompt = request.get("prompt");
    if (prompt != null && prompt.isString()) return prompt.stringValue();
    if (prompt != null && prompt.isArray() && !prompt.isEmpty()) {
      // A batch of prompts is served as one concatenated prompt with one choice.
      StringBuilder s = new StringBuilder();
      for (JsonNode p : prompt) s.append(p.isString() ? p.stringValue() : p.toString());
      return s.toString();
    }
    throw new BadRequest("'prompt' must be a string or a non-empty array");
  }

  private int maxTokens(JsonNode request) {
    JsonNode n = request.hasNonNull("max_completion_tokens")
        ? request.get("max_completion_tokens") : request.get("max_tokens");
    if (n == null || n.isNull()) return engine.defaultMaxTokens;
    if (!n.canConvertToInt() || !n.isIntegralNumber() || n.intValue() < 0
        || n.intValue() > EmulatedReplica.MAX_TOKENS_LIMIT) {
      throw new BadRequest("'max_tokens' must be an integer in [0, "
          + EmulatedReplica.MAX_TOKENS_LIMIT + "]");
    }
    return n.intValue();
  }

  private static String idPrefix(Api api) {
    return api == Api.CHAT ? "chatcmpl-" : "cmpl-";
  }

  private static ObjectNode usage(int promptChars, int cachedChars, int completionTokens) {
    ObjectNode usage = JSON.createObjectNode();
    int promptTokens = EmulatedEngine.tokens(promptChars);
    usage.put("prompt_tokens", promptTokens);
    usage.put("completion_tokens", completionTokens);
    usage.put("total_tokens", promptTokens + completionTokens);
    usage.putObject("prompt_tokens_details").put("cached_tokens", cachedChars / 4);
    return usage;
  }

  private void sendJson(HttpExchange ex, int status, ObjectNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    ex.getResponseBody().write(bytes);
  }

  private void sendError(HttpExchange ex, int status, String message, @Nullable String retryAfter)
      throws IOException {
    ObjectNode body = JSON.createObjectNode();
    ObjectNode error = body.putObject("error");
    error.put("message", message);
    error.put("type", status >= 500 ? "server_error" : "invalid_request_error");
    error.put("code", status);
    if (retryAfter != null) ex.getResponseHeaders().set("Retry-After", retryAfter);
    sendJson(ex, status, body);
  }

  /** The parts shared by every object of one response, whole or streamed. */
  private final class Response {
    final Api api;
    final String id;
    final long created;
    final String model;
    final ObjectNode usage;

    Response(Api api, String id, long created, String model, ObjectNode usage) {
      this.api = api;
      this.id = id;
      this.created = created;
      this.model = model;
      this.usage = usage;
    }

    ObjectNode whole(String text, String finishReason) {
      ObjectNode o = head(api == Api.CHAT ? "chat.completion" : "text_completion");
      ObjectNode choice = o.putArray("choices").addObject();
      choice.put("index", 0);
      if (api == Api.CHAT) {
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        message.put("content", text);
      } else {
        choice.put("text", text);
      }
      choice.putNull("logprobs");
      choice.put("finish_reason", finishReason);
      o.set("usage", usage);
      return o;
    }

    /** A chunk with a token ({@code text}) or, when {@code finishReason} is set, the end. */
    ObjectNode chunk(@Nullable String text, boolean first, @Nullable String finishReason) {
      ObjectNode o = head(api == Api.CHAT ? "chat.completion.chunk" : "text_completion");
      ObjectNode choice = o.putArray("choices").addObject();
      choice.put("index", 0);
      if (api == Api.CHAT) {
        ObjectNode delta = choice.putObject("delta");
        if (first) delta.put("role", "assistant");
        if (text != null) delta.put("content", text);
      } else {
        choice.put("text", text == null ? "" : text);
      }
      choice.putNull("logprobs");
      if (finishReason == null) choice.putNull("finish_reason");
      else choice.put("finish_reason", finishReason);
      return o;
    }

    ObjectNode usageChunk() {
      ObjectNode o = head(api == Api.CHAT ? "chat.completion.chunk" : "text_completion");
      o.putArray("choices");
      o.set("usage", usage);
      return o;
    }

    private ObjectNode head(String object) {
      ObjectNode o = JSON.createObjectNode();
      o.put("id", id);
      o.put("object", object);
      o.put("created", created);
      o.put("model", model);
      o.put("x_emulated_replica", engine.id);
      return o;
    }
  }
}
