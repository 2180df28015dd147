package io.github.llmrouter.routing;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * What a routing policy may know about a request: the model it names, its prompt (the messages of
 * a chat, the prompt of a completion), the text that identifies its prefix, and an optional
 * caller-supplied key. Built once per call by the client (or by the simulator, from a trace's
 * block ids); policies must not retain it.
 *
 * <p>The prompt reaches policies in two forms, each computed at most once per request, on first
 * use, and shared by every consumer (the policy and the client's slow-start eligibility): {@link
 * #prefixKey()}, the ring key of the first {@value KeyExtractor#DEFAULT_PREFIX_CHARS} characters of
 * the {@link #prompt()} text, and {@link #blocks(int)}, the whole prompt as chained block hashes
 * ({@link PromptBlocks}).
 *
 * <p>Thread-safe: the cached forms are immutable and computed idempotently, so a request may be
 * read from the thread of a later failover attempt.
 *
 * @since 0.2.0
 */
public final class RoutingRequest {
  private static final @Nullable String[] NO_ROLE = {null};

  private final String model;
  private final @Nullable CharSequence prompt;
  private final @Nullable String routingKey;
  /** The messages, or null when the prompt text is the whole prompt. */
  private final @Nullable String @Nullable [] roles;
  private final CharSequence @Nullable [] contents;
  /** How many leading entries of {@link #roles} and {@link #contents} are messages. */
  private final int messages;
  private final @Nullable PromptBlocks given;
  // Racy single-check caches: recomputing them is harmless, and PromptBlocks is immutable.
  private @Nullable PromptBlocks blocks;
  private long prefixKey;
  private boolean prefixKeyKnown;

  /**
   * A request whose whole prompt is {@code prompt}.
   *
   * @param model the model name as sent to the server; with LoRA adapters served as models (vLLM)
   *     or named {@code base_adapter} (KubeAI), the adapter is part of it, so each adapter has its
   *     own key space
   * @param prompt the text whose beginning identifies the request's prefix, and its whole prompt;
   *     {@code null} if none
   * @param routingKey an explicit affinity key (a session or conversation id) that replaces the
   *     prompt prefix in the default key extractor; {@code null} if none
   */
  public RoutingRequest(String model, @Nullable CharSequence prompt, @Nullable String routingKey) {
    this(model, prompt, routingKey, null, null, 0, null);
  }

  private RoutingRequest(String model, @Nullable CharSequence prompt, @Nullable String routingKey,
      @Nullable String @Nullable [] roles, CharSequence @Nullable [] contents, int messages,
      @Nullable PromptBlocks given) {
    this.model = requireNonNull(model, "model");
    this.prompt = prompt;
    this.routingKey = routingKey;
    this.roles = roles;
    this.contents = contents;
    this.messages = messages;
    this.given = given;
  }

  /**
   * {@return a request with no explicit routing key whose whole prompt is {@code prompt}}
   *
   * @param model the model name as sent to the server; not null
   * @param prompt the request's whole prompt, or null if none
   */
  public static RoutingRequest of(String model, @Nullable CharSequence prompt) {
    return new RoutingRequest(model, prompt, null);
  }

  /**
   * {@return a builder for a request with messages, or with precomputed blocks}
   *
   * @param model the model name as sent to the server; not null
   */
  public static Builder builder(String model) {
    return builder(model, 4);
  }

  /**
   * {@return a builder for a request with messages, sized for {@code messages} of them} The size
   * only saves copying as messages are added; more may be added.
   *
   * @param model the model name as sent to the server; not null
   * @param messages how many messages are expected; a negative count is taken as 0
   */
  public static Builder builder(String model, int messages) {
    return new Builder(requireNonNull(model, "model"), Math.max(1, messages));
  }

  /** {@return the model name as sent to the server} */
  public String model() {
    return model;
  }

  /**
   * {@return the text whose beginning identifies the request's prefix: the first user message of
   * a chat, the prompt of a completion, the first input of an embedding; {@code null} if none}
   */
  public @Nullable CharSequence prompt() {
    return prompt;
  }

  /** {@return the explicit affinity key (a session or conversation id), or {@code null}} */
  public @Nullable String routingKey() {
    return routingKey;
  }

  /**
   * {@return the default ring key ({@link KeyExtractor#prefix(int)} with {@value
   * KeyExtractor#DEFAULT_PREFIX_CHARS} characters): the model with the routing key if set, else
   * the first characters of {@link #prompt()}} Computed once.
   */
  public long prefixKey() {
    if (!prefixKeyKnown) {
      prefixKey = KeyExtractor.prefixKey(this, KeyExtractor.DEFAULT_PREFIX_CHARS);
      prefixKeyKnown = true;
    }
    return prefixKey;
  }

  /** {@return {@link #blocks(int)} with {@value PromptBlocks#DEFAULT_BLOCK_CHARS}-character blocks} */
  public PromptBlocks blocks() {
    return blocks(PromptBlocks.DEFAULT_BLOCK_CHARS);
  }

  /**
   * The whole prompt as chained block hashes of {@code blockChars} characters (see {@link
   * PromptBlocks}), computed on first use and kept; a request built with {@link
   * Builder#blocks(PromptBlocks) precomputed blocks} returns those whatever the size asked.
   *
   * @param blockChars characters per block, at least 1
   * @return the prompt's blocks, never null
   * @throws IllegalArgumentException if {@code blockChars < 1}
   */
  public PromptBlocks blocks(int blockChars) {
    if (given != null) return given;
    if (blockChars < 1) throw new IllegalArgumentException("blockChars must be >= 1, got " + blockChars);
    PromptBlocks b = blocks;
    if (b == null || (b.blockChars != blockChars && b != PromptBlocks.EMPTY)) {
      CharSequence[] c = contents;
      @Nullable String[] r = roles;
      if (c != null && r != null) { // a message list: roles and contents come together
        b = messages == 0 ? PromptBlocks.EMPTY
            : PromptBlocks.ofMessages(model, r, c, messages, blockChars, MessageChains.SHARED);
      } else {
        b = prompt == null ? PromptBlocks.EMPTY
            : PromptBlocks.ofMessages(model, NO_ROLE, new CharSequence[] {prompt}, 1, blockChars,
                MessageChains.SHARED);
      }
      blocks = b;
    }
    return b;
  }

  @Override
  public String toString() {
    // Never print the prompt: it is user data.
    return "RoutingRequest{model=" + model
        + ", promptChars=" + (prompt == null ? 0 : prompt.length())
        + (contents != null ? ", messages=" + messages : "")
        + (routingKey == null ? "" : ", routingKey=<set>") + '}';
  }

  /** Builds a {@link RoutingRequest}. Not thread-safe. */
  public static final class Builder {
    private final String model;
    private @Nullable CharSequence prompt;
    private boolean promptSet;
    private @Nullable String routingKey;
    private @Nullable String[] roles;
    private CharSequence[] contents;
    private int messages;
    private @Nullable PromptBlocks blocks;

    private Builder(String model, int capacity) {
      this.model = model;
      this.roles = new String[capacity];
      this.contents = new CharSequence[capacity];
    }

    /**
     * Appends a message of the prompt. A chat's messages are added in order; {@code role} null
     * for text without roles (a completion's prompt). Unless {@link #prompt} is set, the first
     * {@code user} message (or the first message without a role) becomes the prompt text.
     *
     * @param role the message's role, or null for text without roles
     * @param content the message's text; not null
     * @return this builder
     */
    public Builder message(@Nullable String role, CharSequence content) {
      requireNonNull(content, "content");
      if (messages == contents.length) {
        int size = Math.max(4, messages * 2);
        roles = Arrays.copyOf(roles, size);
        contents = Arrays.copyOf(contents, size);
      }
      roles[messages] = role;
      contents[messages] = content;
      messages++;
      return this;
    }

    /**
     * Sets the prefix text ({@link RoutingRequest#prompt()}) explicitly.
     *
     * @param prompt the prefix text, or null for none
     * @return this builder
     */
    public Builder prompt(@Nullable CharSequence prompt) {
      this.prompt = prompt;
      this.promptSet = true;
      return this;
    }

    /**
     * Sets the explicit affinity key.
     *
     * @param routingKey the key, or null for none
     * @return this builder
     */
    public Builder routingKey(@Nullable String routingKey) {
      this.routingKey = routingKey;
      return this;
    }

    /**
     * Precomputed blocks (for example from a trace's block ids, see {@link
     * PromptBlocks#of}), returned by {@link RoutingRequest#blocks(int)} instead of hashing
     * the messages.
     *
     * @param blocks the prompt's blocks; not null
     * @return this builder
     */
    public Builder blocks(PromptBlocks blocks) {
      this.blocks = requireNonNull(blocks, "blocks");
      return this;
    }

    /** {@return the request} */
    public RoutingRequest build() {
      CharSequence text = prompt;
      if (!promptSet) {
        for (int k = 0; k < messages && text == null; k++) {
          String role = roles[k];
          if (role == null || role.equals("user")) text = contents[k];
        }
      }
      // Shared, not copied: a request reads only its first `messages` entries, and the builder
      // only ever writes past them.
      return new RoutingRequest(model, text, routingKey, roles, contents, messages, blocks);
    }
  }
}
