package dev.tally.adapters.kafka;

/**
 * Strict UTF-8 validation (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF, no
 * truncated sequences. Jackson checks the bytes of the strings it decodes but not of the values it
 * skips, so the whole value is checked once up front; the ASCII loop makes that nearly free for
 * typical records.
 */
final class Utf8 {

  private Utf8() {}

  /** The index of the first byte that breaks UTF-8, or -1 when {@code bytes} is valid. */
  static int firstInvalidByte(byte[] bytes) {
    int i = 0;
    int n = bytes.length;
    while (i < n) {
      int b = bytes[i];
      if (b >= 0) {
        i++;
        continue;
      }
      int lead = b & 0xFF;
      int length;
      int min;
      if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
        min = 0x80;
      } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        min = 0x800;
      } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        min = 0x10000;
      } else {
        return i;
      }
      if (i + length > n) {
        return i;
      }
      int codePoint = lead & (0xFF >> (length + 1));
      for (int k = 1; k < length; k++) {
        int c = bytes[i + k] & 0xFF;
        if ((c & 0xC0) != 0x80) {
          return i;
        }
        codePoint = (codePoint << 6) | (c & 0x3F);
      }
      if (codePoint < min || codePoint > 0x10FFFF || (codePoint >= 0xD800 && codePoint <= 0xDFFF)) {
        return i;
      }
      i += length;
    }
    return -1;
  }
}
