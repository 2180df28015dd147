package io.github.llmrouter.internal.transport;

import io.github.llmrouter.api.RawRequest;
import io.github.llmrouter.api.RawResponse;
import io.github.llmrouter.routing.RoutingRequest;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;

/**
 * What routing needs of a {@link RawRequest}, read from its JSON body in one pass of Jackson's
 * token stream (no tree, no binding): the {@code model}; the messages as roles and text, from a
 * chat's {@code messages} or the Responses API's {@code instructions} and {@code input} items; or
 * the first text of a completion's {@code prompt} or an embedding's {@code input}; and whether it
 * asks for a {@code stream}. The text of a message joins the text of its content parts, as {@link
 * io.github.llmrouter.api.ChatMessage#text()} does, so that a conversation sent raw and sent typed
 * has the same key. A body that is not JSON, or not the shape expected, routes on what was read
 * before it: never an exception. Stateless.
 *
 * @param routing the routing view of the request
 * @param endpoint the operation, by path and streaming
 */
public record RequestScan(RoutingRequest routing, Endpoint<RawResponse> endpoint) {
  /**
   * {@return what routing needs of {@code request}}
   *
   * @param request the request; its body is read if it is JSON
   */
  public static RequestScan of(RawRequest request) {
    Fields f = new Fields();
    if (request.jsonBody() && request.body().length > 0) {
      try (JsonParser p = Json.MAPPER.createParser(request.body())) {
        if (p.nextToken() == JsonToken.START_OBJECT) f.readTop(p);
      } catch (JacksonException | IllegalStateException malformed) {
        // (IllegalStateException: the body ended inside an array.)
        // Routed on what was read; the replica judges the body.
      }
    }
    return new RequestScan(f.routing(request.routingKey()), Endpoint.raw(request.path(), f.stream));
  }

  /** The fields read so far; filled in the order they come. */
  private static final class Fields {
    @Nullable String model;
    boolean stream;
    /** The first text of {@code prompt} or of a string {@code input}. */
    @Nullable String firstText;
    @Nullable String firstUser;
    @Nullable String instructions;
    /** The messages' roles (null if a message has none) and texts. */
    private final List<@Nullable String> roles = new ArrayList<>();
    private final List<String> texts = new ArrayList<>();

    void readTop(JsonParser p) {
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        switch (name) {
          case "model" -> {
            if (t == JsonToken.VALUE_STRING) model = p.getString();
            else skip(p);
          }
          case "stream" -> {
            stream = t == JsonToken.VALUE_TRUE;
            skip(p);
          }
          case "messages", "input" -> readMessages(p, t);
          case "prompt" -> readPrompt(p, t);
          case "instructions" -> {
            if (t == JsonToken.VALUE_STRING) instructions = p.getString();
            else skip(p);
          }
          default -> skip(p);
        }
      }
    }

    /**
     * The routing view: with messages if any were read (the Responses API's instructions first,
     * then its string input as the user's turn), else the first text as the whole prompt.
     */
    RoutingRequest routing(@Nullable String key) {
      String m = model == null ? "" : model;
      if (instructions != null) {
        roles.add(0, "system");
        texts.add(0, instructions);
        if (roles.size() == 1 && firstText != null) message("user", firstText);
      }
      if (roles.isEmpty()) return new RoutingRequest(m, firstText, key);
      RoutingRequest.Builder b = RoutingRequest.builder(m, roles.size()).routingKey(key);
      for (int i = 0; i < roles.size(); i++) b.message(roles.get(i), texts.get(i));
      return b.prompt(firstUser).build();
    }

    private void message(@Nullable String role, String text) {
      roles.add(role);
      texts.add(text);
      if (firstUser == null && "user".equals(role)) firstUser = text;
    }

    /** {@code messages}, or {@code input}: a string, strings, or message items. */
    private void readMessages(JsonParser p, JsonToken t) {
      if (t == JsonToken.VALUE_STRING) {
        firstText = p.getString();
        return;
      }
      if (t != JsonToken.START_ARRAY) {
        skip(p);
        return;
      }
      for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
        if (e == null) throw new IllegalStateException("truncated");
        if (e == JsonToken.VALUE_STRING) {
          if (firstText == null) firstText = p.getString();
        } else if (e == JsonToken.START_OBJECT) {
          readMessage(p);
        } else {
          skip(p);
        }
      }
    }

    /** One message: its role and the text of its content. */
    private void readMessage(JsonParser p) {
      String role = null;
      String content = null;
      while (p.nextToken() == JsonToken.PROPERTY_NAME) {
        String name = p.currentName();
        JsonToken t = p.nextToken();
        if (name.equals("role") && t == JsonToken.VALUE_STRING) {
          role = p.getString();
        } else if (name.equals("content") && t == JsonToken.VALUE_STRING) {
          content = p.getString();
        } else if (name.equals("content") && t == JsonToken.START_ARRAY) {
          content = parts(p);
        } else {
          skip(p);
        }
      }
      if (role == null && content == null) return; // a tool output or reasoning item
      message(role, content == null ? "" : content);
    }

    /** The text of content parts ({@code {"type": "text", "text": ...}}), joined. */
    private static @Nullable String parts(JsonParser p) {
      StringBuilder joined = null;
      for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
        if (e == null) throw new IllegalStateException("truncated");
        if (e != JsonToken.START_OBJECT) {
          skip(p);
          continue;
        }
        while (p.nextToken() == JsonToken.PROPERTY_NAME) {
          String name = p.currentName();
          JsonToken t = p.nextToken();
          if (name.equals("text") && t == JsonToken.VALUE_STRING) {
            if (joined == null) joined = new StringBuilder();
            joined.append(p.getString());
          } else {
            skip(p);
          }
        }
      }
      return joined == null ? null : joined.toString();
    }

    /** A completion's {@code prompt}: a string, or strings (token arrays are not text). */
    private void readPrompt(JsonParser p, JsonToken t) {
      if (t == JsonToken.VALUE_STRING) {
        firstText = p.getString();
      } else if (t == JsonToken.START_ARRAY) {
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
          if (e == null) throw new IllegalStateException("truncated");
          if (e == JsonToken.VALUE_STRING && firstText == null) firstText = p.getString();
          else skip(p);
        }
      } else {
        skip(p);
      }
    }

    /** Skips the value the parser is on (Jackson bounds the nesting it reads). */
    private static void skip(JsonParser p) {
      p.skipChildren();
    }
  }
}
