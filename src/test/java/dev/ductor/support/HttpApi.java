package dev.ductor.support;

import dev.ductor.security.DevTokenIssuer;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static io.restassured.RestAssured.given;

/** A tenant of its own with a token per role, for HTTP tests outside the api package. */
public final class HttpApi {

    private final DevTokenIssuer issuer;
    public final String tenant;

    public HttpApi(DevTokenIssuer issuer) {
        this.issuer = issuer;
        this.tenant = "t-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public RequestSpecification as(String role) {
        return given().header("Authorization", "Bearer " + issuer.mint(role, tenant)).contentType(ContentType.JSON);
    }

    public String define(String definition) {
        String name = "wf-" + UUID.randomUUID().toString().substring(0, 8);
        as("admin").body(definition).put("/api/v1/workflows/{name}", name).then().statusCode(201);
        return name;
    }

    public String start(String workflow) {
        return as("client").body("{}").post("/api/v1/workflows/{name}/runs", workflow).then().statusCode(201).extract().path("runId");
    }

    public Response run(String runId) {
        return as("client").get("/api/v1/runs/{id}", runId);
    }

    public String awaitStatus(String runId, String wanted) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String status = null;
        while (System.nanoTime() < deadline) {
            status = run(runId).path("status");
            if (wanted.equals(status)) {
                return status;
            }
            Thread.sleep(50);
        }
        return status;
    }
}
