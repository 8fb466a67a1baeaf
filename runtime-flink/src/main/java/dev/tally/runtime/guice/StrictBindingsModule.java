package dev.tally.runtime.guice;

import com.google.inject.AbstractModule;

/**
 * Guice's strict mode: every binding explicit, no circular proxies, constructors marked with
 * {@code @Inject}.
 */
public final class StrictBindingsModule extends AbstractModule {

  @Override
  protected void configure() {
    binder().requireExplicitBindings();
    binder().disableCircularProxies();
    binder().requireAtInjectOnConstructors();
    binder().requireExactBindingAnnotations();
  }
}
