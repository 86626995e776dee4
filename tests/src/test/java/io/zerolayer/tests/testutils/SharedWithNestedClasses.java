package io.zerolayer.tests.testutils;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A class-level extension (a broker, a MiniCluster) started once for a test class and shared by its
 * {@link Nested} classes. JUnit hands an enclosing class's extensions to its nested classes and
 * calls their before-all and after-all callbacks again for each one, which would start another
 * cluster per group; this calls them for the top-level class only, and the per-test callbacks for
 * every test.
 */
public final class SharedWithNestedClasses
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
    private final Extension shared;

    public SharedWithNestedClasses(Extension shared) {
        this.shared = shared;
    }

    /** Whether the context is a nested class's (or a test in one). */
    public static boolean nested(ExtensionContext context) {
        return context.getTestClass().map(c -> c.isAnnotationPresent(Nested.class)).orElse(false);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        if (!nested(context) && shared instanceof BeforeAllCallback c) {
            c.beforeAll(context);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (!nested(context) && shared instanceof AfterAllCallback c) {
            c.afterAll(context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (shared instanceof BeforeEachCallback c) {
            c.beforeEach(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (shared instanceof AfterEachCallback c) {
            c.afterEach(context);
        }
    }
}
