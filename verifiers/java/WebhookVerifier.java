import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class WebhookVerifier {
  private WebhookVerifier() {}

  /** Whether signatureHeader (the Service-Signature value) signs rawBody, the bytes as received, with secret. */
  public static boolean verify(
      String secret, String signatureHeader, byte[] rawBody, long nowSeconds, long toleranceSeconds) {
    if (signatureHeader == null) return false;
    long timestamp = -1;
    List<byte[]> signatures = new ArrayList<>();
    for (String part : signatureHeader.split(",", -1)) {
      int eq = part.indexOf('=');
      if (eq < 0) return false;
      String key = part.substring(0, eq).trim();
      String value = part.substring(eq + 1).trim();
      if (key.equals("t")) {
        if (timestamp >= 0 || !value.matches("[0-9]{1,12}")) return false;
        timestamp = Long.parseLong(value);
      } else if (key.equals("v1")) {
        if (!value.matches("[0-9a-f]{64}")) return false;
        byte[] signature = new byte[32];
        for (int i = 0; i < 32; i++) {
          signature[i] = (byte) Integer.parseInt(value.substring(2 * i, 2 * i + 2), 16);
        }
        signatures.add(signature);
      }
    }
    if (timestamp < 0 || signatures.isEmpty()) return false;
    if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
    byte[] expected;
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
      expected = mac.doFinal(rawBody);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
    // Every candidate is compared, so the time taken does not tell which one matched.
    boolean matched = false;
    for (byte[] signature : signatures) matched |= MessageDigest.isEqual(expected, signature);
    return matched;
  }
}
