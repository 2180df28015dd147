package io.github.llmrouter.routing;

/** TEMPORARY experiment knobs. */
final class Tune {
  static double d(String name, double def) {
    String v = System.getProperty("ca." + name);
    return v == null ? def : Double.parseDouble(v);
  }
}
