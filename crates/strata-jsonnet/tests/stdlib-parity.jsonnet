// Standard-library cases whose output must be go-jsonnet 0.22's, byte for
// byte: one field per case, each a string (the case's text as the
// function gives it). `bench/components/stdlib_parity.py` evaluates this
// file with go-jsonnet (PyPI `gojsonnet==0.22.0`) and writes the expected
// strings to `stdlib-parity.expected.json`; `cargo test` compares without
// a network.
{
  toString_third: std.toString(1 / 3),
  toString_tenth: std.toString(0.1),
  toString_int: std.toString(42),
  toString_big: std.toString(1e21),
  toString_small: std.toString(1e-7),
  toString_exp: std.toString(std.exp(1)),
  toString_whole_float: std.toString(2.0),
  toString_negative: std.toString(-1.5),
  toString_array: std.toString([1, 0.5, 'a']),
  concat_number: 'n=' + (1 / 3),
  format_f: '%f' % (1 / 3),
  format_g: '%g' % 1234567,
  format_d: '%05d' % 42,
  format_s: '%s and %s' % ['a', 0.1],
  manifestYamlDoc_multiline: std.manifestYamlDoc({ s: 'x\ny' }),
  manifestYamlDoc_scalars: std.manifestYamlDoc({ n: 1 / 3, i: 7, b: true, z: null, t: 'a: b', e: '' }),
  manifestYamlDoc_nested: std.manifestYamlDoc({ list: [1, [2, 3], { a: 'b' }], empty: [], emptyObject: {} }),
  manifestYamlDoc_indented: std.manifestYamlDoc({ list: ['a', 'b'] }, indent_array_in_object=true),
  manifestYamlDoc_unquoted: std.manifestYamlDoc({ key: 'value', 'needs quote': 'x' }, quote_keys=false),
  manifestYamlStream_end: std.manifestYamlStream([1, { a: 2 }]),
  manifestYamlStream_no_end: std.manifestYamlStream([1, 2], c_document_end=false),
  manifestJson: std.manifestJson({ b: [1, 2], a: { c: 0.5 } }),
  manifestJsonEx: std.manifestJsonEx({ a: [1, 2] }, '  '),
  manifestJsonMinified: std.manifestJsonMinified({ a: [1, 2], b: 'x' }),
  trim: std.trim('  a b \t\n'),
  parseYaml_bools: std.manifestJsonMinified(std.parseYaml('a: yes\nb: on\nc: y\nd: no\ne: off\nf: true')),
  parseYaml_numbers: std.manifestJsonMinified(std.parseYaml('a: 1_000\nb: 1.5\nc: 0x10\nd: 010\ne: 1e3')),
  parseYaml_float_text: std.toString(std.parseYaml('a: 0.1').a),
  parseJson: std.manifestJsonMinified(std.parseJson('{"a": [1, 2.5, "x"]}')),
  escapeStringJson: std.escapeStringJson('a"b\\c\n\u0001<'),
  stringChars: std.toString(std.stringChars('héllo')),
}
