package main

import (
	"flag"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/engine"
)

// securityFlags registers the TLS, mTLS, token and admin-credential flags
// shared by `dev` and `gateway`; apply copies them into a Config.
func securityFlags(fs *flag.FlagSet) (apply func(*engine.Config)) {
	tlsCert := fs.String("tls-cert", "", "TLS certificate (PEM); enables TLS with --tls-key")
	tlsKey := fs.String("tls-key", "", "TLS private key (PEM)")
	clientCA := fs.String("tls-client-ca", "", "require client certificates signed by this CA (PEM; mutual TLS; needs --tls-cert/--tls-key)")
	oauth := fs.Bool("oauth", false, "start the development OAuth token endpoint (signed JWTs) and require bearer tokens")
	oauthID := fs.String("oauth-client-id", "jobwire", "client id accepted by the token endpoint")
	oauthSecret := fs.String("oauth-client-secret", "secret", "client secret accepted by the token endpoint")
	oauthTTL := fs.Duration("oauth-token-ttl", 60*time.Second, "lifetime of issued tokens (JWT exp)")
	issuer := fs.String("oauth-issuer", "jobwire-engine", "required token issuer (iss)")
	audience := fs.String("oauth-audience", "zeebe-api", "required token audience (aud)")
	pubKey := fs.String("oauth-public-key", "", "PEM public key (or certificate) that verifies tokens; turns token validation on")
	jwks := fs.String("oauth-jwks", "", "JWKS file whose keys verify tokens; turns token validation on")
	signKey := fs.String("oauth-signing-key", "", "PEM EC P-256 private key the token endpoint signs with (default: a fresh key)")
	leeway := fs.Duration("oauth-leeway", 5*time.Second, "clock skew allowed on exp/nbf/iat")
	adminToken := fs.String("admin-token-file", "", "file holding the admin API's bearer token (required for admin when tokens are required)")
	return func(c *engine.Config) {
		c.TLSCert, c.TLSKey, c.TLSClientCA = *tlsCert, *tlsKey, *clientCA
		c.OAuth, c.OAuthID, c.OAuthKey, c.OAuthTTL = *oauth, *oauthID, *oauthSecret, *oauthTTL
		c.OAuthIssuer, c.OAuthAudience, c.OAuthPublicKey, c.OAuthJWKS = *issuer, *audience, *pubKey, *jwks
		c.OAuthSigningKey, c.OAuthLeeway, c.AdminTokenFile = *signKey, *leeway, *adminToken
	}
}
