package dev.ductor.run.core;

/** A move the transition tables do not allow: a bug in the tick, never a user error. */
public class IllegalTransitionException extends IllegalStateException {

    public IllegalTransitionException(String what, String from, String to) {
        super("illegal " + what + " transition " + from + " -> " + to);
    }
}
