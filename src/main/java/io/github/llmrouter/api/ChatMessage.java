package io.github.llmrouter.api;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One message of a chat: a role and its content. Also the {@code delta} of a streamed chunk, where
 * any field may be absent.
 *
 * <p>Content is usually text; OpenAI's content-part arrays (text and image parts) are kept as
 * parsed JSON ({@link #content()} returns a {@code List}) and {@link #text()} joins their text
 * parts. Fields this type does not model ({@code tool_calls}, {@code tool_call_id},
 * {@code reasoning_content}, …) are kept in {@link #extra()} and sent back unchanged.
 *
 * @since 0.2.0
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class ChatMessage extends ApiObject {
  @JsonProperty("role")
  private @Nullable String role;

  @JsonProperty("content")
  private @Nullable Object content;

  @JsonProperty("name")
  private @Nullable String name;

  private ChatMessage() {}

  private ChatMessage(String role, @Nullable Object content, @Nullable String name,
      Map<String, Object> extra) {
    this.role = role;
    this.content = content;
    this.name = name;
    setExtra(extra);
  }

  /**
   * A message with the given role and text.
   *
   * @param role the role, such as {@code user} or {@code tool}; not null
   * @param text the content; not null
   * @return an immutable message
   */
  public static ChatMessage of(String role, String text) {
    return new ChatMessage(requireNonNull(role, "role"), requireNonNull(text, "text"), null,
        JsonExtras.none());
  }

  /**
   * A {@code system} message.
   *
   * @param text the content; not null
   * @return an immutable message
   */
  public static ChatMessage system(String text) {
    return of("system", text);
  }

  /**
   * A {@code user} message.
   *
   * @param text the content; not null
   * @return an immutable message
   */
  public static ChatMessage user(String text) {
    return of("user", text);
  }

  /**
   * An {@code assistant} message (a previous turn of the conversation).
   *
   * @param text the content; not null
   * @return an immutable message
   */
  public static ChatMessage assistant(String text) {
    return of("assistant", text);
  }

  /**
   * A message with arbitrary content (a text, or a list of content parts as maps) and extra fields
   * such as {@code tool_calls}; for everything the factories above do not cover.
   *
   * @param role the role; not null
   * @param content a {@code String}, a {@code List} of content parts as maps, or null
   * @param extra further fields sent as they are; copied, not null
   * @return an immutable message
   */
  public static ChatMessage of(String role, @Nullable Object content, Map<String, Object> extra) {
    return new ChatMessage(requireNonNull(role, "role"), content, null,
        requireNonNull(extra, "extra"));
  }

  /**
   * {@return the role ({@code system}, {@code user}, {@code assistant}, {@code tool}); null in a
   * delta that omits it}
   */
  public @Nullable String role() {
    return role;
  }

  /** {@return the content as sent: a {@code String}, a {@code List} of content parts, or null} */
  public @Nullable Object content() {
    return content;
  }

  /**
   * The content as text: the string itself, or the {@code text} of every text part joined, or null
   * when there is no text.
   *
   * @return the text, or null when the content holds none
   */
  public @Nullable String text() {
    if (content == null || content instanceof String) return (String) content;
    if (content instanceof List) {
      StringBuilder sb = null;
      for (Object part : (List<?>) content) {
        if (part instanceof Map && ((Map<?, ?>) part).get("text") instanceof String) {
          if (sb == null) sb = new StringBuilder();
          sb.append((String) ((Map<?, ?>) part).get("text"));
        }
      }
      return sb == null ? null : sb.toString();
    }
    return content.toString();
  }

  /** {@return the optional participant name, or null} */
  public @Nullable String name() {
    return name;
  }

  @Override
  public String toString() {
    // Content is user data: show its size, never the text.
    String text = text();
    return "ChatMessage{role=" + role + ", chars=" + (text == null ? 0 : text.length())
        + (hasExtra() ? ", extra=" + extra().keySet() : "") + '}';
  }
}
