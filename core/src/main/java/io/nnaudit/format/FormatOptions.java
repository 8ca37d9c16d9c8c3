package io.nnaudit.format;

import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.hdfs.DFSConfigKeys;

/**
 * What shapes a record besides its event: the prefix, and the stock keys that decide whether and how far the
 * caller context and the tracking id are written. Immutable; built from the settings, or, with the stock
 * defaults for what is not set, by {@link #builder()}.
 */
public final class FormatOptions {
  private final boolean log4jPrefix;
  private final boolean callerContextEnabled;
  private final int callerContextMaxLen;
  private final int callerSignatureMaxLen;
  private final boolean trackingIdEnabled;

  private FormatOptions(Builder b) {
    this.log4jPrefix = b.log4jPrefix;
    this.callerContextEnabled = b.callerContextEnabled;
    this.callerContextMaxLen = b.callerContextMaxLen;
    this.callerSignatureMaxLen = b.callerSignatureMaxLen;
    this.trackingIdEnabled = b.trackingIdEnabled;
  }

  /** Options with nnaudit's and Hadoop's defaults, to be changed where needed. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether an hdfs record begins with the stock layout's {@code %d{ISO8601} %p %c{2}: } ({@code
   * nnaudit.record.prefix=log4j}); a JSON record carries its time in a field either way.
   */
  public boolean log4jPrefix() {
    return log4jPrefix;
  }

  /** {@code hadoop.caller.context.enabled}. */
  public boolean callerContextEnabled() {
    return callerContextEnabled;
  }

  /** {@code hadoop.caller.context.max.size}: characters of escaped context kept. */
  public int callerContextMaxLen() {
    return callerContextMaxLen;
  }

  /** {@code hadoop.caller.context.signature.max.size}: the longest signature written, in bytes. */
  public int callerSignatureMaxLen() {
    return callerSignatureMaxLen;
  }

  /** {@code dfs.namenode.audit.log.token.tracking.id}. */
  public boolean trackingIdEnabled() {
    return trackingIdEnabled;
  }

  /** Builds {@link FormatOptions}; starts from the defaults. */
  public static final class Builder {
    private boolean log4jPrefix = true;
    private boolean callerContextEnabled = CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_ENABLED_DEFAULT;
    private int callerContextMaxLen = CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_MAX_SIZE_DEFAULT;
    private int callerSignatureMaxLen = CommonConfigurationKeysPublic.HADOOP_CALLER_CONTEXT_SIGNATURE_MAX_SIZE_DEFAULT;
    private boolean trackingIdEnabled = DFSConfigKeys.DFS_NAMENODE_AUDIT_LOG_TOKEN_TRACKING_ID_DEFAULT;

    private Builder() {
    }

    public Builder log4jPrefix(boolean on) {
      this.log4jPrefix = on;
      return this;
    }

    public Builder callerContext(boolean enabled, int maxLen, int signatureMaxLen) {
      this.callerContextEnabled = enabled;
      this.callerContextMaxLen = maxLen;
      this.callerSignatureMaxLen = signatureMaxLen;
      return this;
    }

    public Builder trackingId(boolean enabled) {
      this.trackingIdEnabled = enabled;
      return this;
    }

    public FormatOptions build() {
      return new FormatOptions(this);
    }
  }
}
