package io.zerolayer.operators.tenants;

/**
 * One of a tenant's signing keys.
 *
 * @param id the key's name in the registry (e.g. {@code 2026-12}); metrics and logs say which key
 *     signed, so an operator sees when the old one of a rotation is no longer used
 * @param secret the HMAC-SHA256 key
 */
public record TenantKey(String id, byte[] secret) {
    @Override
    public String toString() {
        return "TenantKey[" + id + ", secret hidden]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TenantKey k
                && k.id.equals(id)
                && java.security.MessageDigest.isEqual(k.secret, secret);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }
}
