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
import java.util.Arrays;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
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
      return read(in, file.toString(), blockTokens);
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
    // Streaming rather than a tree: reading the 12,031-line Mooncake trace is then a fraction of
    // a second, which matters for a tool run in loops.
    Double timestampMs = null;
    Long input = null;
    Long output = null;
    long[] blockIds = null;
    String session = null;
    try (JsonParser p = JSON.createParser(line)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new TraceFormatException(source, lineNo, "expected a JSON object", null);
      }
      for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
        String field = p.currentName();
        JsonToken v = p.nextToken();
        switch (field) {
          case "timestamp": timestampMs = number(p, v, field).doubleValue(); break;
          case "input_length": input = integer(p, v, field); break;
          case "output_length": output = integer(p, v, field); break;
          case "hash_ids": blockIds = ids(p, v); break;
          case "session_id":
          case "conversation_id":
          case "user_id":
            if (session == null && (v == JsonToken.VALUE_STRING || v.isNumeric())) session = p.getString();
            else p.skipChildren();
            break;
          default:
            p.skipChildren();
        }
      }
      if (p.nextToken() != null) throw new IllegalArgumentException("unexpected text after the object");
    } catch (JacksonException e) {
      throw new TraceFormatException(source, lineNo, "not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new TraceFormatException(source, lineNo, e.getMessage(), e);
    }
    try {
      require(timestampMs, "timestamp");
      require(input, "input_length");
      require(output, "output_length");
      require(blockIds, "hash_ids");
      if (input > Integer.MAX_VALUE || output > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("lengths must fit in an int");
      }
      return new TraceRequest(timestampMs / 1000.0, (int) (long) input,
          (int) Math.max(1, output), blockIds, session);
    } catch (IllegalArgumentException e) {
      throw new TraceFormatException(source, lineNo, e.getMessage(), e);
    }
  }

  private static void require(Object value, String field) {
    if (value == null) throw new IllegalArgumentException("missing field '" + field + "'");
  }

  private static Number number(JsonParser p, JsonToken v, String field) {
    if (v == null || !v.isNumeric()) throw new IllegalArgumentException("'" + field + "' must be a number");
    return p.getNumberValue();
  }

  private static long integer(JsonParser p, JsonToken v, String field) {
    if (v == JsonToken.VALUE_NUMBER_INT) return p.getLongValue();
    if (v == JsonToken.VALUE_NUMBER_FLOAT && p.getDoubleValue() == Math.rint(p.getDoubleValue())) {
      return (long) p.getDoubleValue();
    }
    throw new IllegalArgumentException("'" + field + "' must be an integer");
  }

  private static long[] ids(JsonParser p, JsonToken v) {
    if (v != JsonToken.START_ARRAY) throw new IllegalArgumentException("'hash_ids' must be an array");
    long[] ids = new long[32];
    int n = 0;
    for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
      if (t != JsonToken.VALUE_NUMBER_INT) {
        throw new IllegalArgumentException("'hash_ids'[" + n + "] must be an integer");
      }
      if (n == ids.length) ids = Arrays.copyOf(ids, n * 2);
      ids[n++] = p.getLongValue();
    }
    if (n == 0) throw new IllegalArgumentException("'hash_ids' must not be empty");
    return Arrays.copyOf(ids, n);
  }

}
