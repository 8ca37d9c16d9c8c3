package io.nnaudit.testbroker;

import org.apache.kafka.common.security.auth.AuthenticationContext;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.PlaintextAuthenticationContext;
import org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder;

/**
 * Names a client by the listener it came in on, so that ACLs can apply to clients without TLS or SASL: every
 * connection to the PLAINTEXT listener is {@code User:client}; the controller's own stay {@code User:ANONYMOUS}
 * (a super user). Used with {@code TestBroker ... acl}.
 */
public final class ListenerPrincipalBuilder extends DefaultKafkaPrincipalBuilder {
  /** The principal of every client of the PLAINTEXT listener. */
  public static final KafkaPrincipal CLIENT = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "client");

  public ListenerPrincipalBuilder() {
    super(null, null);
  }

  @Override
  public KafkaPrincipal build(AuthenticationContext context) {
    if (context instanceof PlaintextAuthenticationContext && "PLAINTEXT".equals(context.listenerName())) {
      return CLIENT;
    }
    return super.build(context);
  }
}
