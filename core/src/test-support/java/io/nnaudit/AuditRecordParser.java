package io.nnaudit;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A parser of the stock audit line, as a log pipeline would write one: strip the log4j prefix, split the
 * message on tabs, split each field at its first '='. Values stay as written (escaped).
 */
final class AuditRecordParser {
  public static final String PREFIX_TAG = " INFO FSNamesystem.audit: ";

  private AuditRecordParser() {
  }

  public static Map<String, String> parse(String line) {
    int tag = line.indexOf(PREFIX_TAG);
    if (tag != 23) {
      throw new IllegalArgumentException("not a stock audit line: " + line);
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (String field : line.substring(tag + PREFIX_TAG.length()).split("\t", -1)) {
      int eq = field.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("field without '=': " + field);
      }
      if (fields.put(field.substring(0, eq), field.substring(eq + 1)) != null) {
        throw new IllegalArgumentException("field " + field.substring(0, eq) + " twice in " + line);
      }
    }
    return fields;
  }
}
