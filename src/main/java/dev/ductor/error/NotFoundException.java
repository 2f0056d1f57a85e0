package dev.ductor.error;

/** The resource does not exist for the caller's tenant (another tenant's resource is reported the same way). */
public class NotFoundException extends DuctorException {

    public NotFoundException(String what, String id) {
        super(what + " '" + id + "' does not exist");
    }

    /** A resource that exists but is not there for this caller, said in its own words. */
    public NotFoundException(String message) {
        super(message);
    }

    @Override
    public int status() {
        return 404;
    }

    @Override
    public String type() {
        return "not-found";
    }

    @Override
    public String title() {
        return "Not found";
    }
}
