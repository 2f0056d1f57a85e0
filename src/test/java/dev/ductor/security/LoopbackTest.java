package dev.ductor.security;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Dev tokens are served only to callers on this machine: the decision on a caller's address, and on the address the
 * server listens on (a non-loopback one with dev tokens is warned about).
 */
@Tag("unit")
class LoopbackTest {

    @Test
    void onlyLoopbackLiteralsAreLocalCallers() {
        assertTrue(Loopback.isLoopbackCaller("127.0.0.1"));
        assertTrue(Loopback.isLoopbackCaller("127.3.2.1"));
        assertTrue(Loopback.isLoopbackCaller("0:0:0:0:0:0:0:1"));
        assertTrue(Loopback.isLoopbackCaller("::1"));

        assertFalse(Loopback.isLoopbackCaller("192.0.2.2"));
        assertFalse(Loopback.isLoopbackCaller("10.0.0.1"));
        assertFalse(Loopback.isLoopbackCaller("fd00::2"));
        assertFalse(Loopback.isLoopbackCaller("0.0.0.0"), "the any-address is not a caller on this machine");
        assertFalse(Loopback.isLoopbackCaller(null), "no address (a Unix socket) is not trusted");
        assertFalse(Loopback.isLoopbackCaller("localhost"), "a name is never looked up: callers are literals");
    }

    @Test
    void aBindingOnEveryInterfaceIsNotLoopback() {
        assertTrue(Loopback.isLoopbackBinding("127.0.0.1"));
        assertTrue(Loopback.isLoopbackBinding("localhost"));
        assertTrue(Loopback.isLoopbackBinding("::1"));

        assertFalse(Loopback.isLoopbackBinding("0.0.0.0"));
        assertFalse(Loopback.isLoopbackBinding("::"));
        assertFalse(Loopback.isLoopbackBinding("192.0.2.2"));
        assertFalse(Loopback.isLoopbackBinding(null));
    }
}
