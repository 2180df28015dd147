package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads Mooncake-format JSONL traces: one JSON object per line with {@code timestamp} (ms since
 * the start), {@code input_length} and {@code output_length} (tokens) and {@code hash_ids} (one id
 * per block of prompt tokens; equal ids mean equal prefixes). An optional string or number field
 * {@code session_id} (also accepted: {@code conversation_id}, {@code user_id}) becomes the
 * request's session id. Other fields are ignored; blank lines are skipped.
 *
 * <p>A malformed line fails the whole read with a {@link TraceFormatException} naming the line:
 * silently skipping lines would change the measured traffic without anyone noticing. An {@code
 * output_length} of 0 is read as 1, since every served request produces at least one token.
 *
 * <pre>{@code
 * Trace t = MooncakeTraceReader.read(Path.of("mooncake_conversation_trace.jsonl"));
 * }</pre>
 */
public final class MooncakeTraceReader {
  /** Tokens per hash id in the published Mooncake traces: {@value}. */
  public static final int MOONCAKE_BLOCK_TOKENS = 512;

  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private MooncakeTraceReader() {}

  /** Reads {@code file} with {@value #MOONCAKE_BLOCK_TOKENS} tokens per block. */
  public static Trace read(Path file) {
    return read(file, MOONCAKE_BLOCK_TOKENS);
  }

  /** Reads {@code file} with {@code blockTokens} tokens per block id. */
  public static Trace read(Path file, int blockTokens) {
    requireNonNull(file, "file");
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      return read(in, file.getFileName().toString(), blockTokens);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace " + file, e);
    }
  }

  /**
   * Reads a trace from {@code in} (not closed); {@code source} names it in error messages.
   *
   * @throws TraceFormatException for the first malformed line
   */
  public static Trace read(Reader in, String source, int blockTokens) {
    requireNonNull(in, "in");
    requireNonNull(source, "source");
    BufferedReader lines = in instanceof BufferedReader b ? b : new BufferedReader(in);
    List<TraceRequest> out = new ArrayList<>();
    long lineNo = 0;
    try {
      for (String line; (line = lines.readLine()) != null; ) {
        lineNo++;
        if (line.isBlank()) continue;
        out.add(parse(line, source, lineNo));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace " + source + " after line " + lineNo, e);
    }
    return Trace.of(out, blockTokens);
  }

  private static TraceRequest parse(String line, String source, long lineNo) {
    JsonNode node;
    try {
      node = JSON.readTree(line);
    } catch (JacksonException e) {
      throw new TraceFormatException(source, lineNo, "not valid JSON: " + e.getOriginalMessage(), e);
    }
    if (node == null || !node.isObject()) {
      throw new TraceFormatException(source, lineNo, "expected a JSON object", null);
    }
    try {
      double timestampMs = number(node, "timestamp").asDouble();
      long input = number(node, "input_length").asLong();
      long output = number(node, "output_length").asLong();
      JsonNode ids = node.get("hash_ids");
      if (ids == null || !ids.isArray()) throw new IllegalArgumentException("'hash_ids' must be an array");
      if (ids.isEmpty()) throw new IllegalArgumentException("'hash_ids' must not be empty");
      long[] blockIds = new long[ids.size()];
      for (int i = 0; i < blockIds.length; i++) {
        JsonNode id = ids.get(i);
        if (!id.isIntegralNumber()) {
          throw new IllegalArgumentException("'hash_ids'[" + i + "] must be an integer");
        }
        blockIds[i] = id.asLong();
      }
      if (input > Integer.MAX_VALUE || output > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("lengths must fit in an int");
      }
      return new TraceRequest(timestampMs / 1000.0, (int) input, (int) Math.max(1, output),
          blockIds, session(node));
    } catch (IllegalArgumentException e) {
      throw new TraceFormatException(source, lineNo, e.getMessage(), e);
    }
  }

  private static JsonNode number(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null) throw new IllegalArgumentException("missing field '" + field + "'");
    if (!v.isNumber()) throw new IllegalArgumentException("'" + field + "' must be a number");
    return v;
  }

  private static String session(JsonNode node) {
    for (String f : new String[] {"session_id", "conversation_id", "user_id"}) {
      JsonNode v = node.get(f);
      if (v != null && (v.isString() || v.isNumber())) return v.asString();
    }
    return null;
  }
}
