//! Reading dense nets from ONNX files (a minimal protobuf reader, no onnx at run time).
