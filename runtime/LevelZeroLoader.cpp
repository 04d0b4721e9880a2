// The Level Zero loader, opened at run time (as the CUDA backend opens the
// CUDA driver): each function LevelZero.cpp calls is defined here and
// forwards to libze_loader.so.1 found by dlopen, so spirjit links no
// Level Zero library and imports on machines without one (its wheel
// included); there, every call says ZE_RESULT_ERROR_UNINITIALIZED and the
// backend lists no device. SPIRJIT_ZE_LOADER names another loader file.
#include <level_zero/ze_api.h>

#include "runtime/DriverLibrary.h"

namespace {

void *loader() {
  static void *library = spirjit::runtime::openDriverLibrary(
      "SPIRJIT_ZE_LOADER", "libze_loader.so.1");
  return library;
}

template <typename Function> Function entry(const char *name) {
  return spirjit::runtime::driverEntry<Function>(loader(), name);
}

} // namespace

extern "C" {

ze_result_t ZE_APICALL zeCommandListAppendBarrier(
    ze_command_list_handle_t hCommandList, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
  static auto *f = entry<decltype(&zeCommandListAppendBarrier)>(
      "zeCommandListAppendBarrier");
  return f ? f(hCommandList, hSignalEvent, numWaitEvents, phWaitEvents)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeCommandListAppendLaunchKernel(
    ze_command_list_handle_t hCommandList, ze_kernel_handle_t hKernel,
    const ze_group_count_t *pLaunchFuncArgs, ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents, ze_event_handle_t *phWaitEvents) {
  static auto *f = entry<decltype(&zeCommandListAppendLaunchKernel)>(
      "zeCommandListAppendLaunchKernel");
  return f ? f(hCommandList, hKernel, pLaunchFuncArgs, hSignalEvent,
               numWaitEvents, phWaitEvents)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeCommandListCreateImmediate(
    ze_context_handle_t hContext, ze_device_handle_t hDevice,
    const ze_command_queue_desc_t *altdesc,
    ze_command_list_handle_t *phCommandList) {
  static auto *f = entry<decltype(&zeCommandListCreateImmediate)>(
      "zeCommandListCreateImmediate");
  return f ? f(hContext, hDevice, altdesc, phCommandList)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL
zeCommandListDestroy(ze_command_list_handle_t hCommandList) {
  static auto *f =
      entry<decltype(&zeCommandListDestroy)>("zeCommandListDestroy");
  return f ? f(hCommandList) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeContextCreate(ze_driver_handle_t hDriver,
                                       const ze_context_desc_t *desc,
                                       ze_context_handle_t *phContext) {
  static auto *f = entry<decltype(&zeContextCreate)>("zeContextCreate");
  return f ? f(hDriver, desc, phContext) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeContextDestroy(ze_context_handle_t hContext) {
  static auto *f = entry<decltype(&zeContextDestroy)>("zeContextDestroy");
  return f ? f(hContext) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeDeviceGet(ze_driver_handle_t hDriver, uint32_t *pCount,
                                   ze_device_handle_t *phDevices) {
  static auto *f = entry<decltype(&zeDeviceGet)>("zeDeviceGet");
  return f ? f(hDriver, pCount, phDevices) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeDeviceGetCommandQueueGroupProperties(
    ze_device_handle_t hDevice, uint32_t *pCount,
    ze_command_queue_group_properties_t *pCommandQueueGroupProperties) {
  static auto *f = entry<decltype(&zeDeviceGetCommandQueueGroupProperties)>(
      "zeDeviceGetCommandQueueGroupProperties");
  return f ? f(hDevice, pCount, pCommandQueueGroupProperties)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeDeviceGetComputeProperties(
    ze_device_handle_t hDevice,
    ze_device_compute_properties_t *pComputeProperties) {
  static auto *f = entry<decltype(&zeDeviceGetComputeProperties)>(
      "zeDeviceGetComputeProperties");
  return f ? f(hDevice, pComputeProperties) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL
zeDeviceGetImageProperties(ze_device_handle_t hDevice,
                           ze_device_image_properties_t *pImageProperties) {
  static auto *f = entry<decltype(&zeDeviceGetImageProperties)>(
      "zeDeviceGetImageProperties");
  return f ? f(hDevice, pImageProperties) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL
zeDeviceGetMemoryProperties(ze_device_handle_t hDevice, uint32_t *pCount,
                            ze_device_memory_properties_t *pMemProperties) {
  static auto *f = entry<decltype(&zeDeviceGetMemoryProperties)>(
      "zeDeviceGetMemoryProperties");
  return f ? f(hDevice, pCount, pMemProperties) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL
zeDeviceGetModuleProperties(ze_device_handle_t hDevice,
                            ze_device_module_properties_t *pModuleProperties) {
  static auto *f = entry<decltype(&zeDeviceGetModuleProperties)>(
      "zeDeviceGetModuleProperties");
  return f ? f(hDevice, pModuleProperties) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeDeviceGetProperties(
    ze_device_handle_t hDevice, ze_device_properties_t *pDeviceProperties) {
  static auto *f =
      entry<decltype(&zeDeviceGetProperties)>("zeDeviceGetProperties");
  return f ? f(hDevice, pDeviceProperties) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeDriverGet(uint32_t *pCount,
                                   ze_driver_handle_t *phDrivers) {
  static auto *f = entry<decltype(&zeDriverGet)>("zeDriverGet");
  return f ? f(pCount, phDrivers) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeDriverGetApiVersion(ze_driver_handle_t hDriver,
                                             ze_api_version_t *version) {
  static auto *f =
      entry<decltype(&zeDriverGetApiVersion)>("zeDriverGetApiVersion");
  return f ? f(hDriver, version) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeDriverGetProperties(
    ze_driver_handle_t hDriver, ze_driver_properties_t *pDriverProperties) {
  static auto *f =
      entry<decltype(&zeDriverGetProperties)>("zeDriverGetProperties");
  return f ? f(hDriver, pDriverProperties) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeEventCreate(ze_event_pool_handle_t hEventPool,
                                     const ze_event_desc_t *desc,
                                     ze_event_handle_t *phEvent) {
  static auto *f = entry<decltype(&zeEventCreate)>("zeEventCreate");
  return f ? f(hEventPool, desc, phEvent) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeEventDestroy(ze_event_handle_t hEvent) {
  static auto *f = entry<decltype(&zeEventDestroy)>("zeEventDestroy");
  return f ? f(hEvent) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeEventHostReset(ze_event_handle_t hEvent) {
  static auto *f = entry<decltype(&zeEventHostReset)>("zeEventHostReset");
  return f ? f(hEvent) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeEventHostSynchronize(ze_event_handle_t hEvent,
                                              uint64_t timeout) {
  static auto *f =
      entry<decltype(&zeEventHostSynchronize)>("zeEventHostSynchronize");
  return f ? f(hEvent, timeout) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeEventPoolCreate(ze_context_handle_t hContext,
                                         const ze_event_pool_desc_t *desc,
                                         uint32_t numDevices,
                                         ze_device_handle_t *phDevices,
                                         ze_event_pool_handle_t *phEventPool) {
  static auto *f = entry<decltype(&zeEventPoolCreate)>("zeEventPoolCreate");
  return f ? f(hContext, desc, numDevices, phDevices, phEventPool)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeEventPoolDestroy(ze_event_pool_handle_t hEventPool) {
  static auto *f = entry<decltype(&zeEventPoolDestroy)>("zeEventPoolDestroy");
  return f ? f(hEventPool) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeEventQueryStatus(ze_event_handle_t hEvent) {
  static auto *f = entry<decltype(&zeEventQueryStatus)>("zeEventQueryStatus");
  return f ? f(hEvent) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags) {
  static auto *f = entry<decltype(&zeInit)>("zeInit");
  return f ? f(flags) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeKernelCreate(ze_module_handle_t hModule,
                                      const ze_kernel_desc_t *desc,
                                      ze_kernel_handle_t *phKernel) {
  static auto *f = entry<decltype(&zeKernelCreate)>("zeKernelCreate");
  return f ? f(hModule, desc, phKernel) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeKernelDestroy(ze_kernel_handle_t hKernel) {
  static auto *f = entry<decltype(&zeKernelDestroy)>("zeKernelDestroy");
  return f ? f(hKernel) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeKernelSetArgumentValue(ze_kernel_handle_t hKernel,
                                                uint32_t argIndex,
                                                size_t argSize,
                                                const void *pArgValue) {
  static auto *f =
      entry<decltype(&zeKernelSetArgumentValue)>("zeKernelSetArgumentValue");
  return f ? f(hKernel, argIndex, argSize, pArgValue)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeKernelSetGroupSize(ze_kernel_handle_t hKernel,
                                            uint32_t groupSizeX,
                                            uint32_t groupSizeY,
                                            uint32_t groupSizeZ) {
  static auto *f =
      entry<decltype(&zeKernelSetGroupSize)>("zeKernelSetGroupSize");
  return f ? f(hKernel, groupSizeX, groupSizeY, groupSizeZ)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeKernelSuggestGroupSize(
    ze_kernel_handle_t hKernel, uint32_t globalSizeX, uint32_t globalSizeY,
    uint32_t globalSizeZ, uint32_t *groupSizeX, uint32_t *groupSizeY,
    uint32_t *groupSizeZ) {
  static auto *f =
      entry<decltype(&zeKernelSuggestGroupSize)>("zeKernelSuggestGroupSize");
  return f ? f(hKernel, globalSizeX, globalSizeY, globalSizeZ, groupSizeX,
               groupSizeY, groupSizeZ)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeMemAllocShared(
    ze_context_handle_t hContext, const ze_device_mem_alloc_desc_t *device_desc,
    const ze_host_mem_alloc_desc_t *host_desc, size_t size, size_t alignment,
    ze_device_handle_t hDevice, void **pptr) {
  static auto *f = entry<decltype(&zeMemAllocShared)>("zeMemAllocShared");
  return f ? f(hContext, device_desc, host_desc, size, alignment, hDevice, pptr)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeMemFree(ze_context_handle_t hContext, void *ptr) {
  static auto *f = entry<decltype(&zeMemFree)>("zeMemFree");
  return f ? f(hContext, ptr) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL
zeModuleBuildLogDestroy(ze_module_build_log_handle_t hModuleBuildLog) {
  static auto *f =
      entry<decltype(&zeModuleBuildLogDestroy)>("zeModuleBuildLogDestroy");
  return f ? f(hModuleBuildLog) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL
zeModuleBuildLogGetString(ze_module_build_log_handle_t hModuleBuildLog,
                          size_t *pSize, char *pBuildLog) {
  static auto *f =
      entry<decltype(&zeModuleBuildLogGetString)>("zeModuleBuildLogGetString");
  return f ? f(hModuleBuildLog, pSize, pBuildLog)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL
zeModuleCreate(ze_context_handle_t hContext, ze_device_handle_t hDevice,
               const ze_module_desc_t *desc, ze_module_handle_t *phModule,
               ze_module_build_log_handle_t *phBuildLog) {
  static auto *f = entry<decltype(&zeModuleCreate)>("zeModuleCreate");
  return f ? f(hContext, hDevice, desc, phModule, phBuildLog)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeModuleDestroy(ze_module_handle_t hModule) {
  static auto *f = entry<decltype(&zeModuleDestroy)>("zeModuleDestroy");
  return f ? f(hModule) : ZE_RESULT_ERROR_UNINITIALIZED;
}

ze_result_t ZE_APICALL zeModuleGetNativeBinary(ze_module_handle_t hModule,
                                               size_t *pSize,
                                               uint8_t *pModuleNativeBinary) {
  static auto *f =
      entry<decltype(&zeModuleGetNativeBinary)>("zeModuleGetNativeBinary");
  return f ? f(hModule, pSize, pModuleNativeBinary)
           : ZE_RESULT_ERROR_UNINITIALIZED;
}

} // extern "C"
