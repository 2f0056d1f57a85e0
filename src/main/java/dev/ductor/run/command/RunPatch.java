package dev.ductor.run.command;

import dev.ductor.error.BadRequestException;
import dev.ductor.run.core.OperatorActions;

import java.util.Map;

/** A validated operator edit: a new tier and/or node actions, in the order given. */
public record RunPatch(String tier, Map<String, OperatorActions.Action> nodes) {

    public RunPatch {
        if (tier == null && nodes.isEmpty()) {
            throw new BadRequestException(null, "nothing to change: give a tier or node actions");
        }
    }
}
