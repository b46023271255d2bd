using System;
using System.Collections.Generic;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;

public static class WebhookVerifier
{
    /// <summary>Whether signatureHeader (the Service-Signature value) signs rawBody, the bytes as received, with secret.</summary>
    public static bool Verify(string secret, string signatureHeader, byte[] rawBody, long nowSeconds, long toleranceSeconds = 300)
    {
        if (signatureHeader == null) return false;
        long timestamp = -1;
        var signatures = new List<byte[]>();
        foreach (var part in signatureHeader.Split(','))
        {
            int eq = part.IndexOf('=');
            if (eq < 0) return false;
            string key = part.Substring(0, eq).Trim();
            string value = part.Substring(eq + 1).Trim();
            if (key == "t")
            {
                if (timestamp >= 0 || !Regex.IsMatch(value, @"\A[0-9]{1,12}\z")) return false;
                timestamp = long.Parse(value, CultureInfo.InvariantCulture);
            }
            else if (key == "v1")
            {
                if (!Regex.IsMatch(value, @"\A[0-9a-f]{64}\z")) return false;
                var signature = new byte[32];
                for (int i = 0; i < 32; i++)
                    signature[i] = byte.Parse(value.Substring(2 * i, 2), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
                signatures.Add(signature);
            }
        }
        if (timestamp < 0 || signatures.Count == 0) return false;
        if (Math.Abs(nowSeconds - timestamp) > toleranceSeconds) return false;
        byte[] expected;
        using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
        {
            byte[] prefix = Encoding.UTF8.GetBytes(timestamp.ToString(CultureInfo.InvariantCulture) + ".");
            hmac.TransformBlock(prefix, 0, prefix.Length, null, 0);
            hmac.TransformFinalBlock(rawBody, 0, rawBody.Length);
            expected = hmac.Hash;
        }
        // Every candidate is compared, so the time taken does not tell which one matched.
        bool matched = false;
        foreach (var signature in signatures) matched |= CryptographicOperations.FixedTimeEquals(expected, signature);
        return matched;
    }
}
