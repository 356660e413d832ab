//! The diagnostic codes of strict decoding.

strata_syntax::declare_codes! {
    UNKNOWN_KEY = "schema/unknown-key" {
        when: "a key the schema does not allow; help: did-you-mean; note: the allowed keys, when few",
        where: "the key",
        why: r"Decoding is strict: a key the schema does not allow is refused rather than ignored, since a misspelt key would otherwise do nothing without a word. A near key is suggested, and the allowed keys are listed when they are few.",
        fix: r"Correct the key's spelling, or move it to the mapping it belongs in.",
        example: r"# blueprint.yaml, with `strata spec check blueprint.yaml`
version: 2023-04-20
varaibles:
  environment:
    type: string
resources:
  ordersTable:
    type: aws/dynamodb/table
    spec:
      tableName: orders",
    }

    TYPE = "schema/type" {
        when: "`expected string, found mapping`",
        where: "the value",
        why: r"Each field has a type in the schema, and a value of another type is refused. The file's syntax decides a value's type: a quoted scalar is a string, `8080` an integer, `[a]` a sequence.",
        fix: r"Write the value with the expected type: unquote a number or boolean, quote a string, or give a mapping or sequence where one is expected.",
        example: r#"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
enableApps: "yes""#,
    }

    REQUIRED = "schema/required" {
        when: "`` missing required key `image` ``",
        where: "the mapping, with its path",
        why: r"The schema marks some keys as required, and a mapping without one is incomplete. The diagnostic points at the mapping and names the missing key.",
        fix: r"Add the missing key with a value.",
        example: r"# blueprint.yaml, with `strata spec check blueprint.yaml`
version: 2023-04-20
resources:
  ordersQueue:
    spec:
      name: orders",
    }

    ENUM = "schema/enum" {
        when: "`` `Sometimes` is not one of `Always`, `Never` ``; help: did-you-mean",
        where: "the value",
        why: r"Some fields take one of a fixed set of values, compared exactly, case included. The message lists them, and a near one is suggested.",
        fix: r"Use one of the listed values, spelled exactly.",
        example: r"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
imagePullPolicy: Sometimes",
    }

    CONSTRAINT = "schema/constraint" {
        when: "lengths, patterns, ranges, item counts, ...: the validator's message",
        where: "the value",
        why: r"Beyond its type, a field may be bounded: a length, a pattern, a numeric range, a number of items. The message is the validator's and states the bound.",
        fix: r"Bring the value within the bound, such as a port of at most 65535 or a name of at most 40 characters.",
        example: r"# catalogue/a.yaml, with `strata platform check catalogue`
name: a
image: x
apps:
  code:
    listen: 99999",
    }

    DECODE = "schema/decode" {
        when: "serde refused a tree the schema accepted",
        where: "the root",
        why: r"A tree is checked against the schema before it is decoded into its typed form, but the schema does not state every bound of the types, such as the upper bound of a 32-bit unsigned integer. When decoding still refuses a value the schema accepted, its message is reported at the document's root.",
        fix: r"Find the value the message names and bring it within its type's range.",
        example: r"# project/contexts/_template/blueprint.yaml, with `strata features check project --context local`
kind: Blueprint
apiVersion: blueprints.windsorcli.dev/v1alpha1
metadata:
  name: demo
terraform:
  - path: network/vpc
    parallelism: 5000000000",
    }

    SCALAR_AS_STRING = "schema/scalar-as-string" {
        when: "a number, boolean or null written where only a string is taken, in a dialect that reads it as Go does (`platform`)",
        where: "the value, with its path",
        why: r"k8shell decodes its blueprints with Go's YAML library, which reads any scalar into a string field as its text: `cpu: 4` is the string `4`. Strata reads such a catalogue unchanged and says so in a note, since the type written and the type read differ.",
        fix: r#"Nothing, when the text is what was meant; quote the value (`cpu: "4"`) to say so and silence the note."#,
        example: r"# catalogue/base.yaml, with `strata platform check catalogue`
name: base
image: docker.io/alpine:latest
resources:
  cpu: 4
  memory: 4Gi",
    }
}
