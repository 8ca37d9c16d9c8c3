package io.nnaudit.ship;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import io.nnaudit.config.ConfigError;
import io.nnaudit.config.NnauditConfigKeys;
import org.apache.hadoop.conf.Configuration;

/**
 * Whether the audit file is shipped, and how to make the shipper. Shipping to Kafka is on when
 * {@code nnaudit.kafka.bootstrap.servers} or {@code nnaudit.kafka.topic} is set (both are then required). The
 * shipper lives in the separate nnaudit-kafka jar, named here and loaded by reflection, so that the core jar
 * depends on nothing Hadoop does not ship.
 *
 * <p>{@link #fromConf} checks every shipping setting when the settings are read, so that a bad one fails the
 * NameNode at start-up with a message naming the key (the shipper's own {@code validate(Configuration)}).
 * Two factories are equal when they make the same kind of shipper: the configuration itself is compared with
 * the rest of the settings.
 */
public final class ShipperFactory {
  /** Named, not referenced: it is in the nnaudit-kafka jar. */
  static final String KAFKA_SHIPPER_CLASS = "io.nnaudit.kafka.KafkaShipper";

  private final Class<?> shipperClass;

  private ShipperFactory(Class<?> shipperClass) {
    this.shipperClass = shipperClass;
  }

  /**
   * The factory for the shipping configured in {@code conf}, or null when nothing is shipped. Throws
   * {@link IllegalArgumentException} naming the key, the value and what is allowed.
   */
  public static ShipperFactory fromConf(Configuration conf) {
    String servers = conf.getTrimmed(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, "");
    String topic = conf.getTrimmed(NnauditConfigKeys.KAFKA_TOPIC_KEY, "");
    if (servers.isEmpty() && topic.isEmpty()) {
      return null;
    }
    if (servers.isEmpty()) {
      throw ConfigError.invalid(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, servers, "a comma-separated list of "
          + "host:port of Kafka brokers; it is required when " + NnauditConfigKeys.KAFKA_TOPIC_KEY + " is set");
    }
    if (topic.isEmpty()) {
      throw ConfigError.invalid(NnauditConfigKeys.KAFKA_TOPIC_KEY, topic, "the name of the Kafka topic to ship the "
          + "audit records to; it is required when " + NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY + " is set");
    }
    Class<?> cls;
    try {
      cls = Class.forName(KAFKA_SHIPPER_CLASS, true, ShipperFactory.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw ConfigError.invalid(NnauditConfigKeys.KAFKA_BOOTSTRAP_SERVERS_KEY, servers, "shipping to Kafka, which "
          + "needs the nnaudit-kafka jar on the NameNode's classpath beside the nnaudit jar (" + e + ")", e);
    }
    try {
      Method validate = cls.getMethod("validate", Configuration.class);
      validate.invoke(null, conf);
    } catch (InvocationTargetException e) {
      throw rethrow(e.getCause());
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new IllegalStateException("nnaudit: " + cls.getName() + " cannot be used: " + e, e);
    }
    return new ShipperFactory(cls);
  }

  /** Makes (does not start) the shipper; a configuration it refuses throws as {@link #fromConf} does. */
  public Shipper create(ShipperContext context) {
    try {
      Constructor<?> c = shipperClass.getConstructor(ShipperContext.class);
      return (Shipper) c.newInstance(context);
    } catch (InvocationTargetException e) {
      throw rethrow(e.getCause());
    } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
      throw new IllegalStateException("nnaudit: " + shipperClass.getName() + " cannot be used: " + e, e);
    }
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException) {
      return (RuntimeException) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
    return new IllegalStateException(t);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShipperFactory && ((ShipperFactory) o).shipperClass == shipperClass;
  }

  @Override
  public int hashCode() {
    return shipperClass.hashCode();
  }

  @Override
  public String toString() {
    return "kafka";
  }
}
