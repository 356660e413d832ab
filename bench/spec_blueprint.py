#!/usr/bin/env python3
"""Writes a Blueprint Specification document shaped like a real service
catalogue, written apart from the Rust benchmark generator
(`crates/strata-spec/examples/support/blueprint.rs`) so the spec ratios
are not measured only on inputs the engine's authors tuned for.

    python3 bench/spec_blueprint.py RESOURCES OUT.yaml

The blueprint holds RESOURCES resources in services of five (a table, a
queue, a role, a function and a topic, the way a serverless API is
written): each resource carries labels, the function selects its
service's table, queue and role by label, and every spec field that
names something is a substitution: variables, values computed with
functions (`join`, `split`, `map`, `object`, `to_upper`, `trimprefix`,
`replace`, `substr`, `eq`, `or`), other resources' spec fields, and a condition on
the topics. It checks clean with `strata spec check`.
"""

import sys

SERVICE = """\
  {s}Table:
    type: aws/dynamodb/table
    metadata:
      displayName: ${{to_upper(values.prefix)}} {s} table
      labels:
        service: {s}
        tier: data
    spec:
      tableName: ${{join(list(values.prefix, "{s}", variables.environment), "-")}}
      billingMode: PAY_PER_REQUEST
      streamName: ${{substr(to_lower(values.prefix), 0, 4)}}-{s}
      readCapacity: ${{variables.capacity}}
      tags: ${{values.commonTags}}
  {s}Queue:
    type: aws/sqs/queue
    metadata:
      displayName: {s} queue
      labels:
        service: {s}
        tier: messaging
    spec:
      queueName: ${{replace(values.prefix, "-", "_")}}_{s}_queue
      visibilityTimeout: ${{values.timeout}}
      deadLetterTarget: ${{trimprefix(resources.{s}Table.spec.tableName, values.prefix)}}
  {s}Role:
    type: aws/iam/role
    metadata:
      labels:
        service: {s}
        tier: access
    spec:
      roleName: ${{values.prefix}}-{s}-role
      policies:
        - name: read-${{resources.{s}Table.spec.tableName}}
          actions: ${{values.tableActions}}
        - name: consume-${{resources.{s}Queue.spec.queueName}}
          actions: ["sqs:ReceiveMessage", "sqs:DeleteMessage"]
  {s}Function:
    type: aws/lambda/function
    description: Handles the {s} requests.
    metadata:
      displayName: ${{values.prefix}} {s} handler
      annotations:
        aws.lambda.function.populateEnvVars: true
      labels:
        service: {s}
        tier: compute
    linkSelector:
      byLabel:
        service: {s}
    spec:
      functionName: ${{values.prefix}}-{s}
      handler: {s}.handler
      runtime: ${{variables.runtime}}
      memorySize: ${{variables.memorySize}}
      timeout: ${{values.timeout}}
      role: ${{resources.{s}Role.spec.roleName}}
      environment:
        variables:
          TABLE: ${{resources.{s}Table.spec.tableName}}
          QUEUE: ${{resources.{s}Queue.spec.queueName}}
          STAGE: ${{to_upper(variables.environment)}}
          REGIONS: ${{join(values.regions, ",")}}
  {s}Topic:
    type: aws/sns/topic
    condition: ${{or(values.isProduction, eq(variables.environment, "staging"))}}
    metadata:
      labels:
        service: {s}
        tier: messaging
    spec:
      topicName: ${{values.prefix}}-{s}-events
      subscribers:
        - ${{resources.{s}Queue.spec.queueName}}
      tags: ${{values.commonTags}}
"""

HEAD = """\
version: 2023-04-20
transform: celerity-2023-04-20

variables:
  environment:
    type: string
    allowedValues: [dev, staging, production]
    default: staging
  region:
    type: aws/region
    default: eu-west-1
  replicaRegions:
    type: string
    default: "eu-west-1, eu-central-1, us-east-1"
  memorySize:
    type: integer
    default: 512
  capacity:
    type: integer
    default: 5
  runtime:
    type: string
    default: python3.12

values:
  prefix:
    type: string
    value: shop-${variables.environment}
  regions:
    type: array
    value: ${map(split(variables.replicaRegions, ","), trim)}
  isProduction:
    type: boolean
    value: ${eq(variables.environment, "production")}
  timeout:
    type: integer
    value: "30"
  commonTags:
    type: object
    value: ${object(team = "shop", environment = variables.environment, region = variables.region)}
  tableActions:
    type: array
    value: ${list("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query")}

resources:
"""


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: spec_blueprint.py RESOURCES OUT.yaml")
    services = max(1, int(sys.argv[1]) // 5)
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.write(HEAD)
        for n in range(services):
            out.write(SERVICE.format(s=f"svc{n:05d}"))
        out.write("exports:\n")
        for n in range(0, services, max(1, services // 50)):
            out.write(
                f"  svc{n:05d}FunctionName:\n    type: string\n"
                f"    field: resources.svc{n:05d}Function.spec.functionName\n"
            )


if __name__ == "__main__":
    main()
