package dev.ductor.error;

/** The resource does not exist for the caller's tenant (another tenant's resource is reported the same way). */
public class NotFoundException extends DuctorException {

    public NotFoundException(String what, String id) {
        super(what + " '" + id + "' does not exist");
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
