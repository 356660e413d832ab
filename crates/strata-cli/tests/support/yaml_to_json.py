"""Writes each YAML file given as JSON, as an editor with only a schema sees it.

    python3 yaml_to_json.py OUT_DIR FILE...

YAML 1.2 (ruamel.yaml, which check-jsonschema installs). A tagged value
(`!cel EXPR`, `!include PATH`) reads as its plain value, the way
yaml-language-server reads the tags declared in `yaml.customTags`. A file
of several documents gives one JSON file per document.
"""

import json
import pathlib
import sys

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.nodes import MappingNode, SequenceNode


def untagged(constructor, _suffix, node):
    if isinstance(node, MappingNode):
        return constructor.construct_mapping(node, deep=True)
    if isinstance(node, SequenceNode):
        return constructor.construct_sequence(node, deep=True)
    return constructor.construct_scalar(node)


SafeConstructor.add_multi_constructor("!", untagged)


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    yaml = YAML(typ="safe", pure=True)
    for index, name in enumerate(sys.argv[2:]):
        path = pathlib.Path(name)
        text = path.read_text(encoding="utf-8")
        documents = [json.loads(text)] if path.suffix == ".json" else list(yaml.load_all(text))
        for number, document in enumerate(documents):
            target = out / f"{index:03}-{number}-{path.name}.json"
            target.write_text(json.dumps(document, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
