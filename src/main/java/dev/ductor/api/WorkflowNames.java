package dev.ductor.api;

import dev.ductor.error.BadRequestException;

import java.util.regex.Pattern;

/** Workflow names appear in URLs, logs and metrics: keep them to a safe alphabet. */
final class WorkflowNames {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");

    private WorkflowNames() {
    }

    static void check(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new BadRequestException("name", "a workflow name is 1-100 characters of A-Z a-z 0-9 _ . -");
        }
    }
}
