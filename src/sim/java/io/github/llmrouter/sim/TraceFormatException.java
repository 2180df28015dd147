package io.github.llmrouter.sim;

/**
 * A trace file that cannot be read: the message names the file's line number and what is wrong
 * with that line.
 */
public final class TraceFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final long line;

  TraceFormatException(String source, long line, String problem, Throwable cause) {
    super(source + ":" + line + ": " + problem, cause);
    this.line = line;
  }

  /** The 1-based line number of the offending line. */
  public long line() {
    return line;
  }
}
