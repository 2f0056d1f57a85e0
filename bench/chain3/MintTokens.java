// Mints the two bearer tokens the chain3 benchmark sends: one admin (registers the workflow), one client
// (starts runs). RS256 signed with the run's throw-away private key, no JWT library: the benchmark must not
// depend on anything but the JDK, and the same tokens go to Ductor and to the reference.
//
// usage: java bench/chain3/MintTokens.java <private-key.pem (PKCS#8)> <out-dir> [issuer] [tenant] [ttl-seconds]
// writes <out-dir>/admin.jwt and <out-dir>/client.jwt
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

public class MintTokens {
    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: MintTokens <private-key.pem> <out-dir> [issuer] [tenant] [ttl-seconds]");
            System.exit(2);
        }
        PrivateKey key = readPrivateKey(Path.of(args[0]));
        Path out = Path.of(args[1]);
        String issuer = args.length > 2 ? args[2] : "ductor-bench";
        String tenant = args.length > 3 ? args[3] : "bench";
        long ttl = args.length > 4 ? Long.parseLong(args[4]) : 7200;
        Files.createDirectories(out);
        Files.writeString(out.resolve("admin.jwt"), sign(key, issuer, "bench-admin", "admin", tenant, ttl));
        Files.writeString(out.resolve("client.jwt"), sign(key, issuer, "bench-client", "client", tenant, ttl));
    }

    // openssl genpkey writes "-----BEGIN PRIVATE KEY-----" (PKCS#8), which KeyFactory reads directly.
    static PrivateKey readPrivateKey(Path pem) throws Exception {
        String text = Files.readString(pem);
        if (!text.contains("BEGIN PRIVATE KEY")) {
            throw new IllegalArgumentException(pem + " is not a PKCS#8 PEM (expected BEGIN PRIVATE KEY)");
        }
        String b64 = text.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(b64)));
    }

    static String sign(PrivateKey key, String issuer, String subject, String role, String tenant, long ttl)
            throws Exception {
        long now = System.currentTimeMillis() / 1000;
        String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\"}";
        String claims = "{\"iss\":\"" + issuer + "\",\"sub\":\"" + subject + "\",\"upn\":\"" + subject
                + "\",\"groups\":[\"" + role + "\"],\"tenant\":\"" + tenant + "\",\"iat\":" + now
                + ",\"exp\":" + (now + ttl) + "}";
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String signingInput = b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        Signature rsa = Signature.getInstance("SHA256withRSA");
        rsa.initSign(key);
        rsa.update(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + b64.encodeToString(rsa.sign());
    }
}
