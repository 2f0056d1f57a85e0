package dev.ductor.run;

/** What an inbox row carries to the next tick. */
public enum InboxKind {
    TASK_RESULT, SIGNAL, CANCEL
}
