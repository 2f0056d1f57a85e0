package dev.ductor.error;

/** An update sent without the version it was based on: refusing it is what keeps edits from being lost. */
public class PreconditionRequiredException extends DuctorException {

    public PreconditionRequiredException(String what) {
        super("Updating " + what + " needs an If-Match header with the version you read (the ETag of your GET)."
                + " Nothing was saved.");
    }

    @Override
    public int status() {
        return 428;
    }

    @Override
    public String type() {
        return "precondition-required";
    }

    @Override
    public String title() {
        return "If-Match required";
    }
}
