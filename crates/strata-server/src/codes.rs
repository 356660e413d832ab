//! The diagnostic codes of the platform service.

strata_syntax::declare_codes! {
    DUPLICATE = "users/duplicate" {
        when: "two users share a username or a token digest",
        why: r"The service finds the caller by the SHA-256 digest of its bearer token, and gives CEL the caller's entry as `user`, so each digest and each username must belong to one user. Digests are compared as bytes, so one written in upper and in lower case is the same.",
        fix: r"Give every user its own `username` and its own token (and so its own `tokenSha256`), or remove the duplicate entry.",
        example: r"# users.yaml
users:
  - {username: ada, tokenSha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, uid: 1001, gid: 1001}
  - {username: ada, tokenSha256: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, uid: 1002, gid: 1002}",
    }

    INVALID_GLOB = "users/invalid-glob" {
        when: "an `allowedBlueprints` entry is not a glob",
        why: r"`allowedBlueprints` holds blueprint names and globs (`*`, `?`, `[a-z]`) that decide which blueprints a user may list and compose. An entry that does not compile as a glob (an unclosed `[`, say) cannot match as meant, so the users file is refused.",
        fix: r"Correct the glob (close its brackets), or write the blueprint's plain name.",
        example: r"# users.yaml
users:
  - username: ada
    tokenSha256: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
    uid: 1001
    gid: 1001
    allowedBlueprints: ['data-[0-9']",
    }
}
