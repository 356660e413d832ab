//! The diagnostic codes of the capabilities dialect.
//!
//! | code | when |
//! |---|---|
//! | `capabilities/invalid-name` | a name does not follow the Kubernetes grammar it becomes (the `names` module's table): a profile's or an Application's `metadata.name` not a DNS-1123 subdomain, a namespace, a component's name or a `CapabilityDefinition`'s name not a DNS-1123 label |
//! | `capabilities/invalid-binding-key` | a `spec.capabilities` key is not `<traitType>` or `<traitType>.<scope>` |
//! | `capabilities/missing-rendering-key` | a rendering misses a key its branch requires (`ingressClassName` when `controllerType` is `ingress`) |
//! | `capabilities/branch-key` | a rendering key belongs to another branch (`gatewayName` under `ingress`), or needs a key that is absent (`authSigninURL` without `authURL`) |
//! | `capabilities/invalid-rendering` | a rendering value breaks a rule its type cannot state (`authURL` with a query string) |
//! | `capabilities/invalid-definition` | a definition's default does not have its property's type |
//! | `capabilities/builtin-definition` | a `CapabilityDefinition` names a built-in handler's type |
//! | `capabilities/conflicting-definition` | two definitions of one trait type differ |
//! | `capabilities/wrong-kind` | a document of another kind where one kind is required (`app.yaml`, the profile) |
//! | `capabilities/unknown-component` | a component type has no registered component handler |
//! | `capabilities/unknown-trait` | a trait type has no registered trait handler (a definition does not make one) |
//! | `capabilities/duplicate-name` | two components, or two policies, of one application share a name |
//! | `capabilities/trait-not-allowed` | a `scaler` trait on a component other than `webservice` or `worker` |
//! | `capabilities/missing-binding` | a trait that needs a capability binding finds none in the profile |
//! | `capabilities/reserved-property` | an application sets a property only the profile may supply |
//! | `capabilities/unvalidated-capability` | a custom capability the application uses has no definition (a warning; an error with `--strict-capabilities`) |
//!
//! Unknown keys, missing required keys and wrong types, in a document or in
//! a rendering validated against a definition, are `schema/*`.

/// A profile's name is not a DNS-1123 subdomain.
pub const INVALID_NAME: &str = "capabilities/invalid-name";
/// A binding key is not `<traitType>` or `<traitType>.<scope>`.
pub const INVALID_BINDING_KEY: &str = "capabilities/invalid-binding-key";
/// A rendering misses a key its branch requires.
pub const MISSING_RENDERING_KEY: &str = "capabilities/missing-rendering-key";
/// A rendering key belongs to another branch, or needs an absent key.
pub const BRANCH_KEY: &str = "capabilities/branch-key";
/// A rendering value breaks a rule its type cannot state.
pub const INVALID_RENDERING: &str = "capabilities/invalid-rendering";
/// A definition's default does not have its property's type.
pub const INVALID_DEFINITION: &str = "capabilities/invalid-definition";
/// A `CapabilityDefinition` names a built-in handler's type.
pub const BUILTIN_DEFINITION: &str = "capabilities/builtin-definition";
/// Two definitions of one trait type differ.
pub const CONFLICTING_DEFINITION: &str = "capabilities/conflicting-definition";
/// A component type has no registered component handler.
pub const UNKNOWN_COMPONENT: &str = "capabilities/unknown-component";
/// A trait type has no registered trait handler.
pub const UNKNOWN_TRAIT: &str = "capabilities/unknown-trait";
/// Two components, or two policies, share a name.
pub const DUPLICATE_NAME: &str = "capabilities/duplicate-name";
/// A `scaler` trait on a component that cannot scale.
pub const TRAIT_NOT_ALLOWED: &str = "capabilities/trait-not-allowed";
/// A trait that needs a capability binding finds none.
pub const MISSING_BINDING: &str = "capabilities/missing-binding";
/// An application sets a property only the profile may supply.
pub const RESERVED_PROPERTY: &str = "capabilities/reserved-property";
/// A used custom capability has no definition.
pub const UNVALIDATED_CAPABILITY: &str = "capabilities/unvalidated-capability";
/// A document of another kind where one kind is required.
pub const WRONG_KIND: &str = "capabilities/wrong-kind";
