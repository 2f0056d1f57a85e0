package dev.ductor.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** {@code java -jar ductor-cli.jar ...}, which {@code cli/bin/ductor} runs. */
public final class Main {

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        DuctorCli.Env env = new DuctorCli.Env(System.getenv(), Path.of("").toAbsolutePath(),
                Path.of(System.getProperty("user.home")), out, err);
        int code = DuctorCli.execute(env, args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    private Main() {
    }
}
