//! The custom resources `strata capabilities build` writes fit their CRDs:
//! each object of a custom resource group that a `build-*` capabilities
//! fixture with objects writes (its `args`, with `-o json`) passes the
//! schema of its kind, each schema's kind is written by some fixture, and a
//! custom kind without a schema fails, so a new emitter cannot slip by. The
//! schemas are ours, written from the CRDs for the fields the build writes,
//! with their types, enums, patterns and bounds; each object is closed, as
//! the API server treats a structural schema (it drops an unknown field,
//! `kubectl apply --validate=strict` refuses it), and the
//! `x-kubernetes-validations` rules JSON Schema can say are kept. CRDs
//! read: cert-manager v1.21, External Secrets v2.9, the Gateway API v1.6
//! experimental channel (only it has `HTTPRoute`'s `ExternalAuth`), Cilium's
//! v2, `VolSync` v0.16, `CloudNativePG` 1.30, the Barman Cloud plugin v0.14,
//! Flux's source-controller v1.9, helm-controller v1.6 and
//! kustomize-controller v1.9. Durations the cert-manager and External
//! Secrets CRDs type only as text are held to Go's syntax, which their
//! controllers parse. Each schema also takes a sample of its kind and
//! refuses changes its CRD refuses, so none lets everything through.
#![expect(clippy::expect_used, reason = "a test stops at the first surprise")]
// `json!` recurses once per token of a literal; the schemas are long.
#![recursion_limit = "256"]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

/// The API groups of the custom resources the build writes.
const GROUPS: &str = "cert-manager.io external-secrets.io gateway.networking.k8s.io cilium.io \
    volsync.backube postgresql.cnpg.io barmancloud.cnpg.io source.toolkit.fluxcd.io \
    helm.toolkit.fluxcd.io kustomize.toolkit.fluxcd.io";

/// A DNS-1123 subdomain: object names, Secret names, precise hostnames.
const SUBDOMAIN: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// A DNS-1123 label: namespaces.
const DNS_LABEL: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
/// A Go duration as `time.Duration.String()` writes it (`2160h0m0s`),
/// which cert-manager and External Secrets read with `time.ParseDuration`.
const GO_DURATION: &str = "^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$";
/// Flux's durations (every kind's `interval`).
const FLUX_DURATION: &str = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";
/// The Gateway API's durations (a rule's `timeouts`): no fractions.
const GATEWAY_DURATION: &str = "^([0-9]{1,5}(h|m|s|ms)){1,4}$";
/// An HTTP header name, as the Gateway API takes it.
const HEADER_NAME: &str = "^[A-Za-z0-9!#$%&'*+\\-.^_\\x60|~]+$";
/// An HTTP header value, as the Gateway API takes it.
const HEADER_VALUE: &str = "^[!-~]+([\\t ]?[!-~]+)*$";
/// The characters of a Gateway API path.
const PATH: &str = "^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$";
/// What an `Exact` or `PathPrefix` path may not hold: `//`, `.` or `..`
/// segments, an encoded `/`.
const PATH_SEGMENTS: &str = "//|/\\.\\.?(/|$)|%2[fF]";
/// A Gateway API route hostname, `*.` allowed in front.
const HOSTNAME: &str =
    "^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
/// A CORS origin, as the Gateway API takes it.
const ORIGIN: &str = "(^\\*$)|(^(http(s)?)://\
    (((\\*\\.)?([a-zA-Z0-9\\-]+\\.)*[a-zA-Z0-9-]+|\\*)(:([0-9]{1,5}))?)$)";
/// A Kubernetes quantity as text.
const QUANTITY: &str = "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))\
    (([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";
/// A Barman retention policy: days, weeks or months (`30d`).
const RETENTION: &str = "^[1-9][0-9]*[dwm]$";
/// A cron schedule or a macro (`@daily`), as `VolSync` takes it.
const SCHEDULE: &str = "^(@(annually|yearly|monthly|weekly|daily|hourly))\
    |((((\\d+,)*\\d+|(\\d+(/|-)\\d+)|\\*(/\\d+)?)\\s?){5})$";
/// A port number or name, as Cilium takes it: text, never a number.
const CILIUM_PORT: &str = "^(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}\
    |[1-5][0-9]{4}|[0-9]{1,4})|([a-zA-Z0-9]-?)*[a-zA-Z](-?[a-zA-Z0-9])*$";

// The building blocks.

/// A string.
fn string() -> Value {
    json!({"type": "string"})
}

/// A string matching `pattern`.
fn pattern(pattern: &str) -> Value {
    json!({"type": "string", "pattern": pattern})
}

/// A string among `values`.
fn choice(values: &[&str]) -> Value {
    json!({"type": "string", "enum": values})
}

/// A boolean.
fn boolean() -> Value {
    json!({"type": "boolean"})
}

/// A Go `int32`.
fn whole() -> Value {
    json!({"type": "integer", "minimum": i32::MIN, "maximum": i32::MAX})
}

/// A list of `items`.
fn list_of(items: Value) -> Value {
    let mut schema = json!({"type": "array"});
    schema["items"] = items;
    schema
}

/// A map of strings: labels, annotations, settings.
fn texts() -> Value {
    json!({"type": "object", "additionalProperties": {"type": "string"}})
}

/// A name and the key of a Secret or a `ConfigMap`.
fn key_ref() -> Value {
    json!({"required": ["key", "name"], "properties": {"name": string(), "key": string()}})
}

/// Requests and limits: quantities, as text or whole numbers.
fn requirements() -> Value {
    let quantity = json!({"type": ["string", "integer"], "pattern": QUANTITY});
    json!({"properties": {
        "requests": {"type": "object", "additionalProperties": quantity},
        "limits": {"type": "object", "additionalProperties": quantity}
    }})
}

/// An object of `api_version` and `kind`: a name and a namespace (every
/// custom resource the build writes is namespaced), labels, annotations,
/// and `spec`; closed (see [`structural`]).
fn object(api_version: &str, kind: &str, spec: Value) -> Value {
    let mut schema = json!({
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": {"const": api_version},
            "kind": {"const": kind},
            "metadata": {"required": ["name", "namespace"], "properties": {
                "name": {"type": "string", "maxLength": 253, "pattern": SUBDOMAIN},
                "namespace": {"type": "string", "maxLength": 63, "pattern": DNS_LABEL},
                "labels": texts(),
                "annotations": texts()
            }}
        }
    });
    schema["properties"]["spec"] = spec;
    structural(&mut schema);
    schema
}

/// Makes each object of `schema` that lists its `properties` an object of
/// those alone: the objects of its shape (properties, list items, map
/// values, the variants of `oneOf` and `allOf`), never those of a
/// condition (`if`, `then`, `not`, `contains`, `anyOf`).
fn structural(schema: &mut Value) {
    let Some(fields) = schema.as_object_mut() else {
        return;
    };
    if fields.contains_key("properties") {
        fields.entry("type").or_insert(json!("object"));
        fields.entry("additionalProperties").or_insert(json!(false));
    }
    for (key, value) in fields.iter_mut() {
        match (key.as_str(), value) {
            ("properties", Value::Object(shape)) => shape.values_mut().for_each(structural),
            ("items" | "additionalProperties", value) => structural(value),
            ("oneOf" | "allOf", Value::Array(shapes)) => shapes.iter_mut().for_each(structural),
            _ => {}
        }
    }
}

// cert-manager, External Secrets, VolSync, Cilium.

/// cert-manager's `Certificate`.
fn certificate() -> Value {
    let spec = json!({"required": ["secretName", "issuerRef"], "properties": {
        "secretName": string(),
        "issuerRef": {"required": ["name"], "properties": {"name": string(), "kind": string()}},
        "dnsNames": list_of(string()),
        "duration": pattern(GO_DURATION),
        "renewBefore": pattern(GO_DURATION),
        "privateKey": {"properties": {
            "algorithm": choice(&["RSA", "ECDSA", "Ed25519"]),
            "encoding": choice(&["PKCS1", "PKCS8"]),
            "rotationPolicy": choice(&["Never", "Always"]),
            "size": {"type": "integer"}
        }}
    }});
    object("cert-manager.io/v1", "Certificate", spec)
}

/// External Secrets' `ExternalSecret`; `data[].remoteRef` and
/// `dataFrom[].extract` are one type.
fn external_secret() -> Value {
    let name = json!({"type": "string", "minLength": 1, "maxLength": 253, "pattern": SUBDOMAIN});
    let key = json!({
        "type": "string", "minLength": 1, "maxLength": 253, "pattern": "^[-._a-zA-Z0-9]+$"
    });
    let remote = json!({"required": ["key"], "properties": {
        "key": string(), "property": string(), "version": string(),
        "decodingStrategy": choice(&["Auto", "Base64", "Base64URL", "None"]),
        "conversionStrategy": choice(&["Default", "Unicode"]),
        "metadataPolicy": choice(&["None", "Fetch"])
    }});
    let spec = json!({"properties": {
        "refreshInterval": pattern(GO_DURATION),
        "secretStoreRef": {"properties": {
            "kind": choice(&["SecretStore", "ClusterSecretStore"]), "name": name
        }},
        "target": {"properties": {
            "name": name,
            "creationPolicy": choice(&["Owner", "Orphan", "Merge", "None", "CreateOrMerge"]),
            "deletionPolicy": choice(&["Delete", "Merge", "Retain"]),
            "template": {"properties": {"type": string(), "data": texts()}}
        }},
        "data": {"type": "array", "items": {
            "required": ["secretKey", "remoteRef"],
            "properties": {"secretKey": key, "remoteRef": remote}
        }},
        "dataFrom": {"type": "array", "items": {"properties": {
            "extract": remote,
            "find": {"properties": {"name": {"properties": {"regexp": string()}}, "tags": texts()}}
        }}}
    }});
    object("external-secrets.io/v1", "ExternalSecret", spec)
}

/// `VolSync`'s `ReplicationSource`, restic only.
fn replication_source() -> Value {
    let spec = json!({"properties": {
        "sourcePVC": string(),
        "trigger": {"properties": {"schedule": pattern(SCHEDULE), "manual": string()}},
        "restic": {"properties": {
            "copyMethod": choice(&["Direct", "None", "Clone", "Snapshot"]),
            "customCA": {"properties": {
                "configMapName": string(), "secretName": string(), "key": string()
            }},
            "pruneIntervalDays": whole(),
            "repository": string(),
            "retain": {"properties": {
                "hourly": whole(), "daily": whole(), "weekly": whole(), "monthly": whole(),
                "yearly": whole(), "last": string(), "within": string()
            }},
            "storageClassName": string(),
            "volumeSnapshotClassName": string()
        }}
    }});
    object("volsync.backube/v1alpha1", "ReplicationSource", spec)
}

/// Cilium's `CiliumNetworkPolicy`: the `endpointSelector` (its CRD takes
/// it or a `nodeSelector`, which the build never writes) and rules.
fn cilium_network_policy() -> Value {
    let selector = cilium_selector();
    let selectors = list_of(selector.clone());
    let cidrs = list_of(string());
    let cidr_rules = json!({"type": "array", "items": {
        "properties": {
            "cidr": string(),
            "cidrGroupRef": {"type": "string", "maxLength": 253, "pattern": SUBDOMAIN},
            "cidrGroupSelector": selector,
            "except": cidrs
        },
        "oneOf": [
            {"required": ["cidr"]}, {"required": ["cidrGroupRef"]},
            {"required": ["cidrGroupSelector"]}
        ]
    }});
    let entities = json!({"type": "array", "items": {"type": "string", "enum": [
        "all", "world", "cluster", "host", "init", "ingress", "unmanaged", "remote-node", "health",
        "none", "kube-apiserver"
    ]}});
    let objects = json!({"type": "array", "items": {"type": "object"}});
    let ingress = cilium_rule(json!({
        "fromEndpoints": selectors, "fromNodes": selectors, "fromCIDR": cidrs,
        "fromCIDRSet": cidr_rules, "fromEntities": entities, "fromGroups": objects
    }));
    let egress = cilium_rule(json!({
        "toEndpoints": selectors, "toNodes": selectors, "toCIDR": cidrs,
        "toCIDRSet": cidr_rules, "toEntities": entities, "toGroups": objects, "toServices": objects,
        "toFQDNs": {"type": "array", "items": {
            "properties": {
                "matchName": {
                    "type": "string", "maxLength": 255, "pattern": "^([-a-zA-Z0-9_]+[.]?)+$"
                },
                "matchPattern": {
                    "type": "string", "maxLength": 255, "pattern": "^([-a-zA-Z0-9_*]+[.]?)+$"
                }
            },
            "oneOf": [{"required": ["matchName"]}, {"required": ["matchPattern"]}]
        }}
    }));
    let spec = json!({
        "required": ["endpointSelector"],
        "properties": {
            "endpointSelector": selector, "ingress": list_of(ingress), "egress": list_of(egress)
        },
        "anyOf": [{"required": ["ingress"]}, {"required": ["egress"]}]
    });
    object("cilium.io/v2", "CiliumNetworkPolicy", spec)
}

/// A Cilium rule of the peers `properties`, with the ports, ICMP types and
/// authentication ingress and egress rules both have.
fn cilium_rule(mut properties: Value) -> Value {
    properties["toPorts"] = json!({"type": "array", "items": {"properties": {
        "ports": {"type": "array", "maxItems": 40, "items": {"properties": {
            "port": pattern(CILIUM_PORT),
            "endPort": {"type": "integer", "minimum": 0, "maximum": 65535},
            "protocol": choice(&["TCP", "UDP", "SCTP", "VRRP", "IGMP", "ANY"])
        }}},
        "rules": {"type": "object"}, "serverNames": list_of(string()),
        "listener": {"type": "object"},
        "originatingTLS": {"type": "object"}, "terminatingTLS": {"type": "object"}
    }}});
    properties["icmps"] = json!({"type": "array", "items": {"properties": {"fields": {
        "type": "array", "maxItems": 40, "items": {"required": ["type"], "properties": {
            "family": choice(&["IPv4", "IPv6"]), "type": {"type": ["integer", "string"]}
        }}
    }}}});
    properties["authentication"] = json!({"required": ["mode"], "properties": {
        "mode": choice(&["disabled", "required", "test-always-fail"])
    }});
    let mut rule = json!({"type": "object"});
    rule["properties"] = properties;
    rule
}

/// Cilium's label selector: label values of at most 63 characters.
fn cilium_selector() -> Value {
    let operators = choice(&["In", "NotIn", "Exists", "DoesNotExist"]);
    json!({"properties": {
        "matchLabels": {"type": "object", "additionalProperties": {
            "type": "string", "maxLength": 63,
            "pattern": "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"
        }},
        "matchExpressions": {"type": "array", "items": {
            "required": ["key", "operator"],
            "properties": {"key": string(), "operator": operators, "values": list_of(string())}
        }}
    }})
}

// The Gateway API.

/// The Gateway API's `HTTPRoute`.
fn http_route() -> Value {
    let spec = json!({"properties": {
        "parentRefs": {"type": "array", "maxItems": 32, "items": {
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 253},
                "namespace": {
                    "type": "string", "minLength": 1, "maxLength": 63, "pattern": DNS_LABEL
                }
            }
        }},
        "hostnames": {"type": "array", "maxItems": 16, "items": {
            "type": "string", "minLength": 1, "maxLength": 253, "pattern": HOSTNAME
        }},
        "rules": {"type": "array", "minItems": 1, "maxItems": 16, "items": route_rule()}
    }});
    object("gateway.networking.k8s.io/v1", "HTTPRoute", spec)
}

/// A rule: matches, backends, filters and timeouts. A `RequestRedirect`
/// answers alone (no backends beside it), and a `ReplacePrefixMatch`
/// needs the one `PathPrefix` match it replaces.
fn route_rule() -> Value {
    let replaces_prefix = json!({"required": ["path"], "properties": {"path": {
        "required": ["type"], "properties": {"type": {"const": "ReplacePrefixMatch"}}
    }}});
    json!({
        "properties": {
            "matches": {"type": "array", "maxItems": 64, "items": route_match()},
            "backendRefs": {"type": "array", "maxItems": 16, "items": service_ref()},
            "filters": route_filters(),
            "timeouts": {"properties": {
                "request": pattern(GATEWAY_DURATION), "backendRequest": pattern(GATEWAY_DURATION)
            }}
        },
        "allOf": [
            {
                "if": {"required": ["backendRefs"], "properties": {"backendRefs": {"minItems": 1}}},
                "then": {"properties": {"filters": {"not": {"contains": {
                    "required": ["requestRedirect"]
                }}}}}
            },
            {
                "if": {"required": ["filters"], "properties": {"filters": {"contains": {"anyOf": [
                    {"required": ["requestRedirect"],
                        "properties": {"requestRedirect": replaces_prefix}},
                    {"required": ["urlRewrite"], "properties": {"urlRewrite": replaces_prefix}}
                ]}}}},
                "then": {"properties": {"matches": {"minItems": 1, "maxItems": 1, "items": {
                    "properties": {"path": {"properties": {"type": {"const": "PathPrefix"}}}}
                }}}}
            }
        ]
    })
}

/// A match: a path (an `Exact` or `PathPrefix` one is a clean absolute
/// path) and headers.
fn route_match() -> Value {
    json!({"properties": {
        "path": {
            "properties": {
                "type": choice(&["Exact", "PathPrefix", "RegularExpression"]),
                "value": {"type": "string", "maxLength": 1024}
            },
            "if": {"properties": {"type": {"enum": ["Exact", "PathPrefix"]}}},
            "then": {"properties": {"value": {"allOf": [
                {"pattern": "^/"}, {"pattern": PATH}, {"not": {"pattern": PATH_SEGMENTS}}
            ]}}}
        },
        "headers": {"type": "array", "maxItems": 16, "items": {
            "required": ["name", "value"],
            "properties": {
                "name": header_name(),
                "type": choice(&["Exact", "RegularExpression"]),
                "value": {
                    "type": "string", "minLength": 1, "maxLength": 4096, "pattern": HEADER_VALUE
                }
            }
        }}
    }})
}

/// An HTTP header's name.
fn header_name() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": 256, "pattern": HEADER_NAME})
}

/// A Service and its port (which a Service needs).
fn service_ref() -> Value {
    json!({"required": ["name", "port"], "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 253},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535}
    }})
}

/// A rule's filters: each a `type` and its settings under its key, never
/// both a redirect and a rewrite.
fn route_filters() -> Value {
    json!({
        "type": "array",
        "maxItems": 16,
        "items": {"oneOf": [
            filter("RequestHeaderModifier", "requestHeaderModifier", header_modifier()),
            filter("ResponseHeaderModifier", "responseHeaderModifier", header_modifier()),
            filter("RequestMirror", "requestMirror", request_mirror()),
            filter("RequestRedirect", "requestRedirect", request_redirect()),
            filter("URLRewrite", "urlRewrite", url_rewrite()),
            filter("CORS", "cors", cors()),
            filter("ExternalAuth", "externalAuth", external_auth())
        ]},
        "not": {"allOf": [having("RequestRedirect"), having("URLRewrite")]}
    })
}

/// A filter of `kind`, its settings at `key`.
fn filter(kind: &str, key: &str, settings: Value) -> Value {
    let mut variant = json!({"required": ["type", key], "properties": {"type": {"const": kind}}});
    variant["properties"][key] = settings;
    variant
}

/// A list having a filter of `kind`.
fn having(kind: &str) -> Value {
    json!({"contains": {"required": ["type"], "properties": {"type": {"const": kind}}}})
}

/// A request or response header modifier.
fn header_modifier() -> Value {
    let headers = json!({"type": "array", "maxItems": 16, "items": {
        "required": ["name", "value"],
        "properties": {
            "name": header_name(),
            "value": {"type": "string", "minLength": 1, "maxLength": 4096, "pattern": HEADER_VALUE}
        }
    }});
    let names = json!({"type": "array", "maxItems": 16, "items": string()});
    json!({"properties": {"set": headers, "add": headers, "remove": names}})
}

/// The path of a redirect or a rewrite: its type and that type's value.
fn path_modifier() -> Value {
    let value = json!({"type": "string", "maxLength": 1024});
    json!({"oneOf": [
        {"required": ["type", "replaceFullPath"], "properties": {
            "type": {"const": "ReplaceFullPath"}, "replaceFullPath": value
        }},
        {"required": ["type", "replacePrefixMatch"], "properties": {
            "type": {"const": "ReplacePrefixMatch"}, "replacePrefixMatch": value
        }}
    ]})
}

/// A `requestRedirect`.
fn request_redirect() -> Value {
    json!({"properties": {
        "scheme": choice(&["http", "https"]),
        "hostname": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": SUBDOMAIN},
        "port": {"type": "integer", "minimum": 1, "maximum": 65535},
        "statusCode": {"type": "integer", "enum": [301, 302, 303, 307, 308]},
        "path": path_modifier()
    }})
}

/// A `urlRewrite`.
fn url_rewrite() -> Value {
    json!({"properties": {
        "hostname": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": SUBDOMAIN},
        "path": path_modifier()
    }})
}

/// A `requestMirror`: a share of the requests, as a percent or a fraction.
fn request_mirror() -> Value {
    json!({
        "required": ["backendRef"],
        "properties": {
            "backendRef": service_ref(),
            "percent": {"type": "integer", "minimum": 0, "maximum": 100},
            "fraction": {"required": ["numerator"], "properties": {
                "numerator": {"type": "integer", "minimum": 0, "maximum": i32::MAX},
                "denominator": {"type": "integer", "minimum": 1, "maximum": i32::MAX}
            }}
        },
        "not": {"required": ["percent", "fraction"]}
    })
}

/// A `cors` block.
fn cors() -> Value {
    let origin = json!({"type": "string", "minLength": 1, "maxLength": 253, "pattern": ORIGIN});
    let method = choice(&[
        "GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "*",
    ]);
    json!({"properties": {
        "allowOrigins": set_of(origin, 64),
        "allowCredentials": boolean(),
        "allowMethods": set_of(method, 9),
        "allowHeaders": set_of(header_name(), 64),
        "exposeHeaders": {"type": "array", "maxItems": 64, "items": header_name()},
        "maxAge": {"type": "integer", "minimum": 1, "maximum": i32::MAX}
    }})
}

/// A list of at most `most` `items`, in which `*` stands alone.
fn set_of(items: Value, most: usize) -> Value {
    let mut schema = list_of(items);
    schema["maxItems"] = json!(most);
    schema["if"] = json!({"contains": {"const": "*"}});
    schema["then"] = json!({"maxItems": 1});
    schema
}

/// An `externalAuth` block: `HTTP` with its `http` settings, `GRPC` with
/// its `grpc` ones.
fn external_auth() -> Value {
    let names = json!({"type": "array", "maxItems": 64, "items": {"type": "string"}});
    json!({
        "required": ["protocol", "backendRef"],
        "properties": {
            "protocol": choice(&["HTTP", "GRPC"]),
            "backendRef": service_ref(),
            "grpc": {"properties": {"allowedHeaders": names}},
            "http": {"properties": {
                "path": {"type": "string", "maxLength": 1024, "pattern": PATH},
                "allowedHeaders": names,
                "allowedResponseHeaders": names
            }},
            "forwardBody": {"properties": {"maxSize": {"type": "integer", "minimum": 0}}}
        },
        "allOf": [
            {"if": {"properties": {"protocol": {"const": "HTTP"}}}, "then": {"required": ["http"]},
                "else": {"not": {"required": ["http"]}}},
            {"if": {"properties": {"protocol": {"const": "GRPC"}}}, "then": {"required": ["grpc"]},
                "else": {"not": {"required": ["grpc"]}}}
        ]
    })
}

// CloudNativePG and the Barman Cloud plugin.

/// `CloudNativePG`'s `Cluster`.
fn cluster() -> Value {
    let spec = json!({"required": ["instances"], "properties": {
        "affinity": {"properties": {
            "enablePodAntiAffinity": boolean(), "topologyKey": string(),
            "podAntiAffinityType": string(), "nodeSelector": texts()
        }},
        "enablePDB": boolean(),
        "imageName": string(),
        "instances": {"type": "integer", "minimum": 1},
        "postgresql": {"properties": {
            "parameters": texts(),
            "syncReplicaElectionConstraint": {
                "required": ["enabled"], "properties": {"enabled": boolean()}
            },
            "synchronous": {"required": ["method", "number"], "properties": {
                "method": choice(&["any", "first"]),
                "number": {"type": "integer", "minimum": 1},
                "dataDurability": choice(&["required", "preferred"]),
                "failoverQuorum": boolean()
            }}
        }},
        "primaryUpdateStrategy": choice(&["unsupervised", "supervised"]),
        "resources": requirements(),
        "storage": {"properties": {"size": string()}},
        "inheritedMetadata": {"properties": {"labels": texts(), "annotations": texts()}},
        "backup": {"properties": {
            "barmanObjectStore": barman_store(), "retentionPolicy": pattern(RETENTION)
        }},
        "monitoring": {"properties": {
            "enablePodMonitor": boolean(), "customQueriesConfigMap": list_of(key_ref())
        }},
        "bootstrap": {"properties": {
            "recovery": {"properties": {"source": string()}},
            "pg_basebackup": {
                "required": ["source"], "properties": {"source": {"type": "string", "minLength": 1}}
            }
        }},
        "externalClusters": {"type": "array", "items": {"required": ["name"], "properties": {
            "name": string(), "connectionParameters": texts(), "barmanObjectStore": barman_store()
        }}},
        "managed": {"properties": {"roles": {"type": "array", "items": {
            "required": ["name"],
            "properties": {
                "name": string(), "comment": string(), "ensure": choice(&["present", "absent"]),
                "passwordSecret": {"required": ["name"], "properties": {"name": string()}},
                "connectionLimit": {"type": "integer"}, "inRoles": list_of(string()),
                "inherit": boolean(), "superuser": boolean(), "createdb": boolean(),
                "createrole": boolean(), "login": boolean(), "replication": boolean()
            }
        }}}},
        "plugins": {"type": "array", "items": {"required": ["name"], "properties": {
            "name": string(), "isWALArchiver": boolean(), "parameters": texts()
        }}}
    }});
    object("postgresql.cnpg.io/v1", "Cluster", spec)
}

/// Barman's object store settings, in a `Cluster` and an `ObjectStore`.
fn barman_store() -> Value {
    let arguments = list_of(string());
    let encryption = choice(&["AES256", "aws:kms"]);
    json!({"required": ["destinationPath"], "properties": {
        "destinationPath": {"type": "string", "minLength": 1},
        "endpointURL": string(),
        "endpointCA": key_ref(),
        "serverName": string(),
        "s3Credentials": {"properties": {
            "accessKeyId": key_ref(), "secretAccessKey": key_ref(), "region": key_ref(),
            "sessionToken": key_ref(), "inheritFromIAMRole": boolean()
        }},
        "azureCredentials": {"properties": {
            "connectionString": key_ref(), "storageAccount": key_ref(), "storageKey": key_ref(),
            "storageSasToken": key_ref(), "inheritFromAzureAD": boolean(),
            "useDefaultAzureCredentials": boolean()
        }},
        "googleCredentials": {"properties": {
            "applicationCredentials": key_ref(), "gkeEnvironment": boolean()
        }},
        "wal": {"properties": {
            "compression": choice(&["bzip2", "gzip", "lz4", "snappy", "xz", "zstd"]),
            "encryption": encryption,
            "maxParallel": {"type": "integer", "minimum": 1},
            "archiveAdditionalCommandArgs": arguments,
            "restoreAdditionalCommandArgs": arguments
        }},
        "data": {"properties": {
            "compression": choice(&["bzip2", "gzip", "lz4", "snappy"]),
            "encryption": encryption,
            "jobs": {"type": "integer", "minimum": 1, "maximum": i32::MAX},
            "immediateCheckpoint": boolean(),
            "additionalCommandArgs": arguments,
            "restoreAdditionalCommandArgs": arguments
        }},
        "tags": texts(),
        "historyTags": texts()
    }})
}

/// `CloudNativePG`'s `Pooler`.
fn pooler() -> Value {
    let spec = json!({"required": ["cluster", "pgbouncer"], "properties": {
        "cluster": {"required": ["name"], "properties": {"name": string()}},
        "instances": whole(),
        "type": choice(&["rw", "ro", "r"]),
        "pgbouncer": {"properties": {
            "poolMode": choice(&["session", "transaction"]), "parameters": texts()
        }}
    }});
    object("postgresql.cnpg.io/v1", "Pooler", spec)
}

/// `CloudNativePG`'s `Database`: not one of the databases every server has.
fn database() -> Value {
    let ensure = choice(&["present", "absent"]);
    let spec = json!({"required": ["cluster", "name", "owner"], "properties": {
        "cluster": {"properties": {"name": string()}},
        "name": {"type": "string", "not": {"enum": ["postgres", "template0", "template1"]}},
        "owner": string(),
        "ensure": ensure,
        "databaseReclaimPolicy": choice(&["delete", "retain"]),
        "extensions": {"type": "array", "items": {"required": ["name"], "properties": {
            "name": string(), "ensure": ensure
        }}}
    }});
    object("postgresql.cnpg.io/v1", "Database", spec)
}

/// The Barman Cloud plugin's `ObjectStore`, whose `serverName` is the
/// `Cluster`'s plugin parameter, never the store's.
fn object_store() -> Value {
    let spec = json!({"required": ["configuration"], "properties": {
        "configuration": {"allOf": [barman_store()], "not": {"required": ["serverName"]}},
        "instanceSidecarConfiguration": {"properties": {"resources": requirements()}},
        "retentionPolicy": pattern(RETENTION)
    }});
    object("barmancloud.cnpg.io/v1", "ObjectStore", spec)
}

// Flux.

/// Flux's `HelmRepository`.
fn helm_repository() -> Value {
    let spec = json!({"required": ["url"], "properties": {
        "interval": pattern(FLUX_DURATION), "url": pattern("^(http|https|oci)://.*$")
    }});
    object("source.toolkit.fluxcd.io/v1", "HelmRepository", spec)
}

/// Flux's `OCIRepository`.
fn oci_repository() -> Value {
    let spec = json!({"required": ["interval", "url"], "properties": {
        "interval": pattern(FLUX_DURATION),
        "url": pattern("^oci://.*$"),
        "ref": {"properties": {"tag": string(), "digest": string(), "semver": string()}}
    }});
    object("source.toolkit.fluxcd.io/v1", "OCIRepository", spec)
}

/// Flux's `HelmRelease`: a `chart` or a `chartRef`, one of them.
fn helm_release() -> Value {
    let name = json!({"type": "string", "minLength": 1, "maxLength": 253});
    let namespace = json!({"type": "string", "minLength": 1, "maxLength": 63});
    let crds = choice(&["Skip", "Create", "CreateReplace"]);
    let spec = json!({
        "required": ["interval"],
        "properties": {
            "interval": pattern(FLUX_DURATION),
            "chart": {"required": ["spec"], "properties": {"spec": {
                "required": ["chart", "sourceRef"],
                "properties": {
                    "chart": {"type": "string", "minLength": 1, "maxLength": 2048},
                    "version": string(),
                    "sourceRef": {"required": ["kind", "name"], "properties": {
                        "kind": choice(&["HelmRepository", "GitRepository", "Bucket"]),
                        "name": name,
                        "namespace": namespace
                    }}
                }
            }}},
            "chartRef": {"required": ["kind", "name"], "properties": {
                "kind": choice(&["OCIRepository", "HelmChart", "ExternalArtifact"]),
                "name": name,
                "namespace": namespace
            }},
            "releaseName": {"type": "string", "minLength": 1, "maxLength": 53},
            "targetNamespace": namespace,
            "driftDetection": {"properties": {"mode": choice(&["enabled", "warn", "disabled"])}},
            "install": {"properties": {"crds": crds}},
            "upgrade": {"properties": {"crds": crds}},
            "values": {"type": "object"},
            "valuesFrom": {"type": "array", "items": {"required": ["kind", "name"], "properties": {
                "kind": choice(&["Secret", "ConfigMap"]),
                "name": name,
                "valuesKey": {"type": "string", "maxLength": 253, "pattern": "^[\\-._a-zA-Z0-9]+$"},
                "targetPath": {
                    "type": "string", "maxLength": 250,
                    "pattern": "^([a-zA-Z0-9_\\-.\\\\/]|\\[[0-9]{1,5}\\])+$"
                }
            }}}
        },
        "oneOf": [{"required": ["chart"]}, {"required": ["chartRef"]}]
    });
    object("helm.toolkit.fluxcd.io/v2", "HelmRelease", spec)
}

/// Flux's `Kustomization`.
fn kustomization() -> Value {
    let spec = json!({"required": ["interval", "prune", "sourceRef"], "properties": {
        "interval": pattern(FLUX_DURATION),
        "path": string(),
        "prune": boolean(),
        "sourceRef": {"required": ["kind", "name"], "properties": {
            "kind": choice(&["OCIRepository", "GitRepository", "Bucket", "ExternalArtifact"]),
            "name": string(),
            "namespace": string()
        }},
        "targetNamespace": {"type": "string", "minLength": 1, "maxLength": 63}
    }});
    object("kustomize.toolkit.fluxcd.io/v1", "Kustomization", spec)
}

// Checking.

/// The schema of every custom resource kind the build writes.
fn schemas() -> [Value; 13] {
    [
        certificate(),
        external_secret(),
        http_route(),
        cilium_network_policy(),
        replication_source(),
        cluster(),
        pooler(),
        database(),
        object_store(),
        helm_repository(),
        oci_repository(),
        helm_release(),
        kustomization(),
    ]
}

/// The schema of `object`'s API version and kind, if there is one.
fn schema_of(object: &Value) -> Option<Value> {
    schemas().into_iter().find(|schema| {
        let properties = &schema["properties"];
        properties["apiVersion"]["const"] == object["apiVersion"]
            && properties["kind"]["const"] == object["kind"]
    })
}

/// A string's text (empty for anything else).
fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// Whether `object` is of a custom resource group the build writes.
fn is_custom(object: &Value) -> bool {
    text(&object["apiVersion"])
        .split_once('/')
        .is_some_and(|(group, _)| GROUPS.split_whitespace().any(|known| known == group))
}

/// What `schema` refuses in `object`, one line per problem.
fn problems(schema: &Value, object: &Value) -> Vec<String> {
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .expect("the schema compiles");
    validator
        .iter_errors(object)
        .map(|error| format!("{}: {error}", error.instance_path()))
        .collect()
}

/// The build fixtures with objects: the folders `build-*` of the
/// capabilities fixtures whose `expected.out` is not empty.
fn build_fixtures() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/capabilities");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root)
        .expect("the capabilities fixtures")
        .map(|entry| entry.expect("a fixture").path())
        .filter(|folder| {
            let name = folder.file_name().and_then(|name| name.to_str());
            name.is_some_and(|name| name.starts_with("build-"))
                && std::fs::metadata(folder.join("expected.out")).is_ok_and(|out| out.len() > 0)
        })
        .collect();
    folders.sort();
    folders
}

/// The objects `strata` builds in `folder`: its `args` (one argument a
/// line, flags such as `-n` and `--fix-kure-bugs` included) and `-o json`,
/// run in the folder.
fn build(folder: &Path) -> Vec<Value> {
    let args = std::fs::read_to_string(folder.join("args")).expect("an args file");
    let output = Command::new(env!("CARGO_BIN_EXE_strata"))
        .current_dir(folder)
        .args(args.lines().filter(|line| !line.is_empty()))
        .args(["-o", "json"])
        .output()
        .expect("strata runs");
    assert!(output.status.success(), "{}: {output:?}", folder.display());
    serde_json::from_slice(&output.stdout).expect("a JSON array of objects")
}

#[test]
fn every_custom_resource_of_the_build_fixtures_fits_its_crd() {
    let mut wrong = Vec::new();
    let mut checked = BTreeSet::new();
    for folder in build_fixtures() {
        let fixture = folder.file_name().unwrap_or_default().display().to_string();
        for object in build(&folder).iter().filter(|object| is_custom(object)) {
            let kind = text(&object["kind"]);
            let at = format!("{fixture}: {kind} `{}`", text(&object["metadata"]["name"]));
            if let Some(schema) = schema_of(object) {
                let found = problems(&schema, object);
                wrong.extend(found.into_iter().map(|problem| format!("{at}: {problem}")));
            } else {
                wrong.push(format!("{at}: no schema of its kind"));
            }
            checked.insert(kind.to_owned());
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    for schema in schemas() {
        let kind = text(&schema["properties"]["kind"]["const"]);
        assert!(checked.contains(kind), "no build fixture writes a {kind}");
    }
}

#[test]
fn each_schema_takes_its_sample_and_refuses_what_its_crd_refuses() {
    let samples: Vec<Value> = serde_json::from_str(SAMPLES).expect("the samples");
    let refusals: Value = serde_json::from_str(REFUSALS).expect("the refusals");
    let mut kinds = BTreeSet::new();
    for sample in samples {
        let kind = text(&sample["kind"]).to_owned();
        let schema = schema_of(&sample).expect("a schema of the sample's kind");
        assert_eq!(problems(&schema, &sample), Vec::<String>::new(), "{sample}");
        let changes = refusals[kind.as_str()].as_array().expect("refusals");
        for change in changes {
            let pointer = text(&change[0]);
            let (parent, key) = pointer.rsplit_once('/').expect("a JSON pointer");
            let mut object = sample.clone();
            let fields = object
                .pointer_mut(parent)
                .and_then(Value::as_object_mut)
                .expect("the object of the changed field");
            if let Some(value) = change.get(1) {
                fields.insert(key.to_owned(), value.clone());
            } else {
                assert!(fields.remove(key).is_some(), "{kind}: no {pointer}");
            }
            assert!(!problems(&schema, &object).is_empty(), "{kind}: {pointer}");
        }
        kinds.insert(kind);
    }
    assert_eq!(kinds.len(), schemas().len(), "one sample a kind: {kinds:?}");
}

/// An object of each kind the build writes, which its schema takes.
const SAMPLES: &str = r#"[
{"apiVersion": "cert-manager.io/v1", "kind": "Certificate",
 "metadata": {"name": "shop-tls", "namespace": "shop"},
 "spec": {"dnsNames": ["shop.example.com"], "duration": "2160h0m0s", "renewBefore": "360h0m0s",
  "issuerRef": {"kind": "ClusterIssuer", "name": "acme"}, "secretName": "shop-tls",
  "privateKey": {"algorithm": "ECDSA", "encoding": "PKCS8", "rotationPolicy": "Always",
   "size": 384}}},
{"apiVersion": "external-secrets.io/v1", "kind": "ExternalSecret",
 "metadata": {"labels": {"app": "shop"}, "name": "shop-keys", "namespace": "shop"},
 "spec": {"refreshInterval": "30m0s", "secretStoreRef": {"kind": "SecretStore", "name": "vault"},
  "data": [{"secretKey": "STRIPE_KEY",
   "remoteRef": {"key": "shop/keys", "property": "stripe", "decodingStrategy": "Base64"}}],
  "dataFrom": [{"extract": {"key": "shop/env", "conversionStrategy": "Default"}},
   {"find": {"name": {"regexp": "^shop-"}, "tags": {"team": "shop"}}}],
  "target": {"creationPolicy": "Owner", "deletionPolicy": "Retain", "name": "shop-keys",
   "template": {"data": {"url": "https://{{ .user }}@shop"}, "type": "Opaque"}}}},
{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
 "metadata": {"annotations": {"team": "shop"}, "labels": {"app": "shop"},
  "name": "shop-httproute", "namespace": "shop"},
 "spec": {"hostnames": ["shop.example.com", "*.shop.example.com"],
  "parentRefs": [{"name": "public", "namespace": "gateway-system"}, {"name": "lan"}],
  "rules": [
   {"backendRefs": [{"name": "shop", "port": 80}],
    "matches": [{"path": {"type": "PathPrefix", "value": "/v2"},
     "headers": [{"name": "x-tenant", "type": "RegularExpression", "value": "^acme-.*$"}]}],
    "timeouts": {"backendRequest": "1s500ms", "request": "1m30s"},
    "filters": [
     {"type": "URLRewrite", "urlRewrite": {"hostname": "shop.internal",
      "path": {"replacePrefixMatch": "/", "type": "ReplacePrefixMatch"}}},
     {"type": "RequestHeaderModifier", "requestHeaderModifier": {
      "add": [{"name": "X-Via", "value": "gateway"}], "remove": ["X-Debug"]}},
     {"type": "RequestMirror", "requestMirror": {"backendRef": {"name": "shadow", "port": 80},
      "fraction": {"denominator": 1000, "numerator": 5}}},
     {"type": "ExternalAuth", "externalAuth": {"protocol": "HTTP", "forwardBody": {"maxSize": 8192},
      "backendRef": {"name": "authz", "port": 9090},
      "http": {"allowedHeaders": ["X-User"], "path": "/check"}}},
     {"type": "CORS", "cors": {"allowCredentials": true, "allowHeaders": ["*"], "maxAge": 600,
      "allowMethods": ["GET", "POST"], "allowOrigins": ["https://*.example.com"]}}]},
   {"matches": [{"path": {"type": "Exact", "value": "/old"}}],
    "filters": [{"type": "RequestRedirect", "requestRedirect": {"scheme": "https", "port": 443,
     "hostname": "shop.example.com", "statusCode": 301,
     "path": {"replaceFullPath": "/new", "type": "ReplaceFullPath"}}}]}]}},
{"apiVersion": "cilium.io/v2", "kind": "CiliumNetworkPolicy",
 "metadata": {"name": "ledger-egress", "namespace": "shop"},
 "spec": {"endpointSelector": {"matchLabels": {"app": "ledger"}},
  "egress": [
   {"toFQDNs": [{"matchName": "bank.example.com"}, {"matchPattern": "*.bank.example.com"}],
    "toPorts": [{"ports": [{"port": "443", "protocol": "TCP"}]}]},
   {"toEntities": ["kube-apiserver"]},
   {"toCIDRSet": [{"cidr": "10.0.0.0/8", "except": ["10.1.0.0/16"]}], "toCIDR": ["2001:db8::/32"]}],
  "ingress": [{"icmps": [{"fields": [{"family": "IPv4", "type": 8}]}],
   "fromEndpoints": [{"matchExpressions": [{"key": "team", "operator": "In", "values": ["pay"]}]}],
   "toPorts": [{"ports": [{"endPort": 8450, "port": "8443"}]}]}]}},
{"apiVersion": "volsync.backube/v1alpha1", "kind": "ReplicationSource",
 "metadata": {"name": "dash-store-backup", "namespace": "ops"},
 "spec": {"sourcePVC": "dash-store", "trigger": {"schedule": "15 1 * * *"},
  "restic": {"copyMethod": "Snapshot", "customCA": {}, "pruneIntervalDays": 14,
   "repository": "grafana-volsync", "retain": {"daily": 7, "monthly": 3, "weekly": 4},
   "storageClassName": "ceph-block", "volumeSnapshotClassName": "csi-snapshots"}}},
{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster",
 "metadata": {"name": "db", "namespace": "data"},
 "spec": {"enablePDB": true, "imageName": "ghcr.io/cloudnative-pg/postgresql:16", "instances": 3,
  "primaryUpdateStrategy": "unsupervised", "storage": {"size": "100Gi"},
  "affinity": {"enablePodAntiAffinity": true, "topologyKey": "kubernetes.io/hostname"},
  "backup": {"retentionPolicy": "30d", "barmanObjectStore": {"destinationPath": "s3://backups/db",
   "s3Credentials": {"accessKeyId": {"key": "ACCESS_KEY_ID", "name": "backup"},
    "secretAccessKey": {"key": "SECRET_ACCESS_KEY", "name": "backup"}}}},
  "bootstrap": {"recovery": {"source": "old-db"}},
  "externalClusters": [{"name": "old-db", "connectionParameters": {"host": "old-db-rw"},
   "barmanObjectStore": {"destinationPath": "s3://backups/old-db", "serverName": "old-db",
    "wal": {"compression": "zstd"}, "data": {"compression": "lz4"}}}],
  "managed": {"roles": [{"name": "app", "connectionLimit": 20, "inRoles": ["pg_read_all_data"],
   "inherit": false, "login": true, "passwordSecret": {"name": "app-db"}}]},
  "monitoring": {"customQueriesConfigMap": [{"key": "q", "name": "pg"}], "enablePodMonitor": true},
  "postgresql": {"parameters": {"max_connections": "200"},
   "syncReplicaElectionConstraint": {"enabled": false}, "synchronous": {
    "dataDurability": "required", "failoverQuorum": false, "method": "any", "number": 1}},
  "resources": {"limits": {"cpu": "4", "memory": "8Gi"}, "requests": {"cpu": "500m"}}}},
{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Pooler",
 "metadata": {"name": "db-pooler", "namespace": "data"},
 "spec": {"cluster": {"name": "db"}, "instances": 3, "type": "rw",
  "pgbouncer": {"parameters": {"max_client_conn": "1000"}, "poolMode": "transaction"}}},
{"apiVersion": "postgresql.cnpg.io/v1", "kind": "Database",
 "metadata": {"name": "db-app", "namespace": "data"},
 "spec": {"cluster": {"name": "db"}, "databaseReclaimPolicy": "delete", "ensure": "present",
  "name": "app", "owner": "app", "extensions": [{"ensure": "absent", "name": "pgvector"}]}},
{"apiVersion": "barmancloud.cnpg.io/v1", "kind": "ObjectStore",
 "metadata": {"name": "db", "namespace": "data"},
 "spec": {"configuration": {"destinationPath": "s3://backups/db", "endpointURL": "https://s3.io",
   "s3Credentials": {"accessKeyId": {"key": "ACCESS_KEY_ID", "name": "backup"},
    "secretAccessKey": {"key": "SECRET_ACCESS_KEY", "name": "backup"}}},
  "instanceSidecarConfiguration": {"resources": {}}, "retentionPolicy": "30d"}},
{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
 "metadata": {"name": "metrics", "namespace": "default"},
 "spec": {"interval": "1h0m0s", "url": "https://prometheus-community.github.io/helm-charts"}},
{"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "OCIRepository",
 "metadata": {"name": "cert-manager", "namespace": "default"},
 "spec": {"interval": "1h0m0s", "ref": {"tag": "v1.17.2"},
  "url": "oci://ghcr.io/cert-manager/charts/cert-manager"}},
{"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
 "metadata": {"name": "metrics", "namespace": "default"},
 "spec": {"interval": "1h0m0s", "releaseName": "metrics", "targetNamespace": "monitoring",
  "chart": {"spec": {"chart": "kube-prometheus-stack", "version": "69.3.2",
   "sourceRef": {"kind": "HelmRepository", "name": "prometheus", "namespace": "flux-system"}}},
  "driftDetection": {"mode": "warn"}, "install": {"crds": "CreateReplace"},
  "upgrade": {"crds": "Skip"}, "values": {"grafana": {"enabled": false}, "replicas": 2},
  "valuesFrom": [{"kind": "ConfigMap", "name": "values", "valuesKey": "values.yaml",
   "targetPath": "alertmanager.config"}, {"kind": "Secret", "name": "secret-values"}]}},
{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
 "metadata": {"name": "checkout", "namespace": "default"},
 "spec": {"interval": "1h0m0s", "path": "./", "prune": true, "targetNamespace": "shop",
  "sourceRef": {"kind": "OCIRepository", "name": "checkout"}}}
]"#;

/// For each kind, changes to its sample its CRD refuses: `[JSON pointer,
/// value]` sets a field, `[JSON pointer]` removes one.
const REFUSALS: &str = r#"{
"Certificate": [["/spec/secretName"], ["/spec/privateKey/algorithm", "DSA"],
 ["/spec/duration", "90d"]],
"ExternalSecret": [["/spec/secretStoreRef/kind", "Vault"], ["/spec/data/0/secretKey"],
 ["/spec/refreshInterval", 3600]],
"HTTPRoute": [["/spec/rules/0/timeouts/request", "1.5s"], ["/spec/rules/0/backendRefs/0/port"],
 ["/spec/rules/0/matches/0/path/type", "Prefix"],
 ["/spec/rules/0/matches/0/path/value", "/v2/../admin"],
 ["/spec/rules/0/filters/3/externalAuth/http"],
 ["/spec/rules/1/backendRefs", [{"name": "shop", "port": 80}]],
 ["/spec/rules/1/filters/0/requestRedirect/statusCode", 300]],
"CiliumNetworkPolicy": [["/spec/endpointSelector"], ["/spec/egress/1/toEntities", ["web"]],
 ["/spec/egress/0/toPorts/0/ports/0/port", 443]],
"ReplicationSource": [["/spec/restic/copyMethod", "Copy"], ["/spec/trigger/schedule", "daily"],
 ["/spec/restic/pruneIntervalDays", "14"]],
"Cluster": [["/spec/instances", "3"], ["/spec/postgresql/parameters/max_connections", 200],
 ["/spec/postgresql/synchronous/number", 0], ["/spec/backup/retentionPolicy", "30 days"],
 ["/spec/externalClusters/0/barmanObjectStore/data/compression", "xz"]],
"Pooler": [["/spec/pgbouncer/poolMode", "statement"], ["/spec/instances", "3"]],
"Database": [["/spec/name", "postgres"], ["/spec/databaseReclaimPolicy", "drop"], ["/spec/owner"]],
"ObjectStore": [["/spec/configuration/serverName", "db"], ["/spec/retentionPolicy", "0d"],
 ["/spec/configuration/destinationPath"]],
"HelmRepository": [["/spec/url", "ftp://charts.example.com"], ["/spec/interval", "1d"]],
"OCIRepository": [["/spec/url", "https://ghcr.io/acme/shop"], ["/spec/interval"]],
"HelmRelease": [["/spec/chartRef", {"kind": "OCIRepository", "name": "shop"}],
 ["/spec/install/crds", "Replace"], ["/spec/releaseName", ""], ["/spec/interval", 60]],
"Kustomization": [["/spec/prune"], ["/spec/sourceRef/kind", "HelmRepository"]]
}"#;
