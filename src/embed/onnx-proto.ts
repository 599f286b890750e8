// A small writer of ONNX model files: the part of onnx.proto a hand-built inference graph needs
// (graph, nodes, attributes, tensors, typed inputs and outputs), encoded with protobufjs.
//
// Why hand-built graphs at all: the default model ships as a TensorFlow.js graph, and there is no
// TF-to-ONNX converter in JavaScript. Field numbers are onnx.proto's (ONNX IR version 8).
import protobuf from "protobufjs";

const SCHEMA = `
syntax = "proto3";
package onnx;
message AttributeProto {
  string name = 1; float f = 2; int64 i = 3; repeated int64 ints = 8; int32 type = 20;
}
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message NodeProto {
  repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4;
  repeated AttributeProto attribute = 5; string domain = 7;
}
message ModelProto {
  int64 ir_version = 1; string producer_name = 2; string producer_version = 3;
  GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8;
}
message GraphProto {
  repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5;
  repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12;
}
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; string name = 8; bytes raw_data = 9; }
message TensorShapeProto {
  message Dimension { oneof value { int64 dim_value = 1; string dim_param = 2; } }
  repeated Dimension dim = 1;
}
message TypeProto {
  message Tensor { int32 elem_type = 1; TensorShapeProto shape = 2; }
  oneof value { Tensor tensor_type = 1; }
}
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
`;

/** onnx.TensorProto.DataType values used here */
export const DataType = { float: 1, int8: 3, int32: 6, int64: 7 } as const;
type ElemType = keyof typeof DataType;

const AttributeType = { float: 1, int: 2, ints: 7 } as const;

export type AttrValue = number | number[] | { float: number };

export interface Tensor {
  name: string;
  type: ElemType;
  dims: number[];
  data: Float32Array | Int8Array | Int32Array | BigInt64Array;
}

interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, AttrValue>;
  domain?: string;
}

/** Accumulates a graph: initializers, nodes with unique names, and typed inputs/outputs. */
export class GraphBuilder {
  private readonly nodes: NodeSpec[] = [];
  private readonly initializers: Tensor[] = [];
  private readonly inputs: { name: string; type: ElemType; dims: (number | string)[] }[] = [];
  private readonly outputs: { name: string; type: ElemType; dims: (number | string)[] }[] = [];
  private counter = 0;

  input(name: string, type: ElemType, dims: (number | string)[]): string {
    this.inputs.push({ name, type, dims });
    return name;
  }

  output(name: string, type: ElemType, dims: (number | string)[]): void {
    this.outputs.push({ name, type, dims });
  }

  /** a named constant tensor; returns its name */
  constant(name: string, type: ElemType, dims: number[], data: Tensor["data"]): string {
    this.initializers.push({ name, type, dims, data });
    return name;
  }

  /** an int64 vector constant (shapes, axes, indices) */
  ints(values: number[]): string {
    return this.constant(`c${this.counter++}`, "int64", [values.length], BigInt64Array.from(values.map(BigInt)));
  }

  /** a float scalar constant */
  scalar(value: number): string {
    return this.constant(`c${this.counter++}`, "float", [], Float32Array.of(value));
  }

  /** adds one node with a single output and returns that output's name */
  op(op: string, inputs: string[], attrs?: Record<string, AttrValue>, domain?: string): string {
    const out = `${op.toLowerCase()}${this.counter++}`;
    this.nodes.push({ op, inputs, outputs: [out], attrs, domain });
    return out;
  }

  /** adds one node with `count` outputs */
  ops(op: string, inputs: string[], count: number, attrs?: Record<string, AttrValue>): string[] {
    const outs = Array.from({ length: count }, () => `${op.toLowerCase()}${this.counter++}`);
    this.nodes.push({ op, inputs, outputs: outs, attrs });
    return outs;
  }

  /** renames the output of the last node (graph outputs need stable names) */
  renameLast(name: string): string {
    const last = this.nodes[this.nodes.length - 1];
    last.outputs[0] = name;
    return name;
  }

  /** the serialised ModelProto */
  encode(opset: number, extraDomains: Record<string, number> = {}): Uint8Array {
    const root = protobuf.parse(SCHEMA).root;
    const Model = root.lookupType("onnx.ModelProto");
    const valueInfo = (v: { name: string; type: ElemType; dims: (number | string)[] }) => ({
      name: v.name,
      type: {
        tensorType: {
          elemType: DataType[v.type],
          shape: { dim: v.dims.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
        },
      },
    });
    const message = Model.fromObject({
      irVersion: 8,
      producerName: "quarry",
      opsetImport: [
        { domain: "", version: opset },
        ...Object.entries(extraDomains).map(([domain, version]) => ({ domain, version })),
      ],
      graph: {
        name: "graph",
        node: this.nodes.map((n, i) => ({
          name: `n${i}`,
          opType: n.op,
          domain: n.domain ?? "",
          input: n.inputs,
          output: n.outputs,
          attribute: Object.entries(n.attrs ?? {}).map(([name, v]) => attribute(name, v)),
        })),
        initializer: this.initializers.map(tensorProto),
        input: this.inputs.map(valueInfo),
        output: this.outputs.map(valueInfo),
      },
    });
    return Model.encode(message).finish();
  }
}

function tensorProto(t: Tensor): Record<string, unknown> {
  return {
    name: t.name,
    dataType: DataType[t.type],
    dims: t.dims,
    rawData: new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength),
  };
}

function attribute(name: string, v: AttrValue): Record<string, unknown> {
  if (typeof v === "number") return { name, type: AttributeType.int, i: v };
  if (Array.isArray(v)) return { name, type: AttributeType.ints, ints: v };
  return { name, type: AttributeType.float, f: v.float };
}
