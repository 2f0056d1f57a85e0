package dev.ductor.security;

/** The roles of the {@code groups} claim. */
public final class Roles {

    public static final String ADMIN = "admin";
    public static final String OPERATOR = "operator";
    public static final String CLIENT = "client";
    public static final String WORKER = "worker";

    private Roles() {
    }
}
