package io.github.llmrouter.engine;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes a tiny llama-architecture model in GGUF (version 3) with random weights and a byte-fallback
 * SentencePiece vocabulary, so that a real llama.cpp server can run in tests without downloading
 * anything. Its answers are noise; everything around them is the real engine: the OpenAI HTTP API,
 * streaming, slots, the prefix cache, {@code /metrics}.
 *
 * <p>The layout, as llama.cpp's {@code gguf.h} documents it: a header (magic, version, tensor and
 * key-value counts), the key-value metadata, the tensor infos (name, dimensions fastest-varying
 * first, type, offset), then the tensor data, each tensor aligned to 32 bytes. The same model as
 * {@code shared/engines/llama.cpp/make_model.py} writes with llama.cpp's own Python writer: 256
 * embedding dimensions, 4 layers, 4 heads, F16 weights and F32 norms.
 */
final class TinyGguf {
  private static final int ALIGNMENT = 32;
  // GGUF value types
  private static final int UINT32 = 4;
  private static final int INT32 = 5;
  private static final int FLOAT32 = 6;
  private static final int BOOL = 7;
  private static final int STRING = 8;
  private static final int ARRAY = 9;
  // GGML tensor types
  private static final int F32 = 0;
  private static final int F16 = 1;

  private static final int EMBD = 256;
  private static final int LAYERS = 4;
  private static final int HEADS = 4;
  private static final int FF = 2 * EMBD;
  private static final int CONTEXT = 65536;

  private TinyGguf() {}

  /** Writes the model to {@code file} (atomically: a reader never sees half a file). */
  static void write(Path file) throws IOException {
    List<String> tokens = new ArrayList<>(List.of("<unk>", "<s>", "</s>"));
    List<Float> scores = new ArrayList<>(List.of(0f, 0f, 0f));
    List<Integer> types = new ArrayList<>(List.of(2, 3, 3)); // unknown, control, control
    for (int b = 0; b < 256; b++) {
      tokens.add(String.format("<0x%02X>", b));
      scores.add(0f);
      types.add(6); // byte
    }
    List<String> pieces = new ArrayList<>();
    pieces.add("\u2581");
    String letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    String punctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    for (char c : (letters + "0123456789" + punctuation).toCharArray()) pieces.add(String.valueOf(c));
    for (char c : letters.substring(0, 26).toCharArray()) pieces.add("\u2581" + c);
    for (String w : ("the of and to in is was for on that with as by at from it an be this are or "
        + "have not but").split(" ")) {
      pieces.add("\u2581" + w);
    }
    for (int i = 0; i < pieces.size(); i++) {
      String p = pieces.get(i);
      tokens.add(p);
      scores.add(p.length() == 1 ? -(float) i : (float) p.length());
      types.add(1); // normal
    }
    int vocab = tokens.size();

    Buffer kv = new Buffer();
    int kvCount = 0;
    kv.string("general.architecture").u32(STRING).string("llama");
    kvCount++;
    String[] u32Keys = {"llama.context_length", "llama.embedding_length", "llama.block_count",
        "llama.feed_forward_length", "llama.attention.head_count",
        "llama.attention.head_count_kv", "llama.rope.dimension_count"};
    int[] u32Values = {CONTEXT, EMBD, LAYERS, FF, HEADS, HEADS, EMBD / HEADS};
    for (int i = 0; i < u32Keys.length; i++, kvCount++) {
      kv.string(u32Keys[i]).u32(UINT32).u32(u32Values[i]);
    }
    kv.string("llama.attention.layer_norm_rms_epsilon").u32(FLOAT32).f32(1e-5f);
    kv.string("llama.vocab_size").u32(UINT32).u32(vocab);
    kv.string("general.file_type").u32(UINT32).u32(1); // mostly F16
    kv.string("tokenizer.ggml.model").u32(STRING).string("llama");
    kv.string("tokenizer.ggml.tokens").u32(ARRAY).u32(STRING).u64(vocab);
    for (String t : tokens) kv.string(t);
    kv.string("tokenizer.ggml.scores").u32(ARRAY).u32(FLOAT32).u64(vocab);
    for (float s : scores) kv.f32(s);
    kv.string("tokenizer.ggml.token_type").u32(ARRAY).u32(INT32).u64(vocab);
    for (int t : types) kv.u32(t);
    kv.string("tokenizer.ggml.bos_token_id").u32(UINT32).u32(1);
    kv.string("tokenizer.ggml.eos_token_id").u32(UINT32).u32(2);
    kv.string("tokenizer.ggml.unknown_token_id").u32(UINT32).u32(0);
    kv.string("tokenizer.ggml.add_bos_token").u32(BOOL).u8(1);
    kv.string("tokenizer.chat_template").u32(STRING).string("{% for m in messages %}<|{{ "
        + "m['role'] }}|>{{ m['content'] }}\n{% endfor %}{% if add_generation_prompt %}"
        + "<|assistant|>{% endif %}");
    kvCount += 12;

    List<Tensor> tensors = new ArrayList<>();
    tensors.add(new Tensor("token_embd.weight", F16, EMBD, vocab));
    tensors.add(new Tensor("output_norm.weight", F32, EMBD));
    tensors.add(new Tensor("output.weight", F16, EMBD, vocab));
    for (int i = 0; i < LAYERS; i++) {
      String b = "blk." + i + ".";
      tensors.add(new Tensor(b + "attn_norm.weight", F32, EMBD));
      tensors.add(new Tensor(b + "ffn_norm.weight", F32, EMBD));
      tensors.add(new Tensor(b + "attn_q.weight", F16, EMBD, EMBD));
      tensors.add(new Tensor(b + "attn_k.weight", F16, EMBD, EMBD));
      tensors.add(new Tensor(b + "attn_v.weight", F16, EMBD, EMBD));
      tensors.add(new Tensor(b + "attn_output.weight", F16, EMBD, EMBD));
      tensors.add(new Tensor(b + "ffn_gate.weight", F16, EMBD, FF));
      tensors.add(new Tensor(b + "ffn_up.weight", F16, EMBD, FF));
      tensors.add(new Tensor(b + "ffn_down.weight", F16, FF, EMBD));
    }

    Buffer infos = new Buffer();
    long offset = 0;
    for (Tensor t : tensors) {
      infos.string(t.name).u32(t.dims.length);
      for (long d : t.dims) infos.u64(d);
      infos.u32(t.type).u64(offset);
      offset = align(offset + t.bytes());
    }

    Path tmp = Files.createTempFile(file.toAbsolutePath().getParent(), "model", ".gguf.tmp");
    SplittableRandom random = new SplittableRandom(1);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
      Buffer header = new Buffer();
      header.u8('G').u8('G').u8('U').u8('F').u32(3).u64(tensors.size()).u64(kvCount);
      long written = header.writeTo(out) + kv.writeTo(out) + infos.writeTo(out);
      written += pad(out, written);
      for (Tensor t : tensors) {
        ByteBuffer data = ByteBuffer.allocate((int) t.bytes()).order(ByteOrder.LITTLE_ENDIAN);
        long n = t.elements();
        for (long i = 0; i < n; i++) {
          if (t.type == F32) {
            data.putFloat(1f); // norms
          } else {
            data.putShort(half((float) (nextGaussian(random) * 0.02)));
          }
        }
        out.write(data.array());
        written += data.capacity();
        written += pad(out, written);
      }
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static long align(long n) {
    return (n + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  }

  private static long pad(OutputStream out, long written) throws IOException {
    long padding = align(written) - written;
    for (long i = 0; i < padding; i++) out.write(0);
    return padding;
  }

  private static double nextGaussian(SplittableRandom random) {
    // Box-Muller: SplittableRandom has no Gaussian on Java 17.
    double u = 1 - random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** IEEE 754 half precision of {@code f}, rounded to nearest; tiny values flush to zero. */
  static short half(float f) {
    int bits = Float.floatToRawIntBits(f);
    int sign = (bits >>> 16) & 0x8000;
    int exponent = ((bits >>> 23) & 0xFF) - 127 + 15;
    int mantissa = bits & 0x7FFFFF;
    if (exponent <= 0) return (short) sign; // below half's normal range: zero is close enough
    if (exponent >= 31) return (short) (sign | 0x7C00);
    int h = sign | exponent << 10 | mantissa >>> 13;
    if ((mantissa & 0x1000) != 0) h++; // round half up
    return (short) h;
  }

  /** A tensor: its name, type and dimensions (the fastest-varying first, as GGUF stores them). */
  private static final class Tensor {
    final String name;
    final int type;
    final long[] dims;

    Tensor(String name, int type, long... dims) {
      this.name = name;
      this.type = type;
      this.dims = dims;
    }

    long elements() {
      long n = 1;
      for (long d : dims) n *= d;
      return n;
    }

    long bytes() {
      return elements() * (type == F32 ? 4 : 2);
    }
  }

  /** A little-endian byte buffer that grows. */
  private static final class Buffer {
    private ByteBuffer bytes = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);

    private ByteBuffer room(int n) {
      if (bytes.remaining() < n) {
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(bytes.capacity() * 2,
            bytes.position() + n)).order(ByteOrder.LITTLE_ENDIAN);
        bytes.flip();
        bigger.put(bytes);
        bytes = bigger;
      }
      return bytes;
    }

    Buffer u8(int v) {
      room(1).put((byte) v);
      return this;
    }

    Buffer u32(int v) {
      room(4).putInt(v);
      return this;
    }

    Buffer u64(long v) {
      room(8).putLong(v);
      return this;
    }

    Buffer f32(float v) {
      room(4).putFloat(v);
      return this;
    }

    Buffer string(String s) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      u64(utf8.length);
      room(utf8.length).put(utf8);
      return this;
    }

    long writeTo(OutputStream out) throws IOException {
      out.write(bytes.array(), 0, bytes.position());
      return bytes.position();
    }
  }
}
