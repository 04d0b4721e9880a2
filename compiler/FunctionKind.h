#pragma once
namespace spirjit { enum class FunctionKind { Kernel, DeviceFunction, Host }; }
