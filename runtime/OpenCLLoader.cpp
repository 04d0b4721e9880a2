// The OpenCL ICD loader, opened at run time (as the CUDA backend opens the
// CUDA driver): each function the OpenCL backend calls is defined here and
// forwards to libOpenCL.so.1 found by dlopen, so spirjit links no OpenCL
// library and imports on machines without one (its wheel included); there
// clGetPlatformIDs finds no platform and the backend lists no device.
// SPIRJIT_OPENCL_LOADER names another loader file.
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include "runtime/DriverLibrary.h"

namespace {

void *loader() {
  static void *library = spirjit::runtime::openDriverLibrary(
      "SPIRJIT_OPENCL_LOADER", "libOpenCL.so.1");
  return library;
}

template <typename Function> Function entry(const char *name) {
  return spirjit::runtime::driverEntry<Function>(loader(), name);
}

} // namespace

extern "C" {

cl_int CL_API_CALL clBuildProgram(
    cl_program program, cl_uint num_devices, const cl_device_id *device_list,
    const char *options,
    void(CL_CALLBACK *pfn_notify)(cl_program program, void *user_data),
    void *user_data) {
  static auto *f = entry<decltype(&clBuildProgram)>("clBuildProgram");
  return f ? f(program, num_devices, device_list, options, pfn_notify,
               user_data)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_mem CL_API_CALL clCreateBuffer(cl_context context, cl_mem_flags flags,
                                  size_t size, void *host_ptr,
                                  cl_int *errcode_ret) {
  static auto *f = entry<decltype(&clCreateBuffer)>("clCreateBuffer");
  if (f)
    return f(context, flags, size, host_ptr, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_PLATFORM_NOT_FOUND_KHR;
  return nullptr;
}

cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context context, cl_device_id device,
    const cl_queue_properties *properties, cl_int *errcode_ret) {
  static auto *f = entry<decltype(&clCreateCommandQueueWithProperties)>(
      "clCreateCommandQueueWithProperties");
  if (f)
    return f(context, device, properties, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_PLATFORM_NOT_FOUND_KHR;
  return nullptr;
}

cl_context CL_API_CALL clCreateContext(
    const cl_context_properties *properties, cl_uint num_devices,
    const cl_device_id *devices,
    void(CL_CALLBACK *pfn_notify)(const char *errinfo, const void *private_info,
                                  size_t cb, void *user_data),
    void *user_data, cl_int *errcode_ret) {
  static auto *f = entry<decltype(&clCreateContext)>("clCreateContext");
  if (f)
    return f(properties, num_devices, devices, pfn_notify, user_data,
             errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_PLATFORM_NOT_FOUND_KHR;
  return nullptr;
}

cl_kernel CL_API_CALL clCreateKernel(cl_program program,
                                     const char *kernel_name,
                                     cl_int *errcode_ret) {
  static auto *f = entry<decltype(&clCreateKernel)>("clCreateKernel");
  if (f)
    return f(program, kernel_name, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_PLATFORM_NOT_FOUND_KHR;
  return nullptr;
}

cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context context, cl_uint num_devices, const cl_device_id *device_list,
    const size_t *lengths, const unsigned char **binaries,
    cl_int *binary_status, cl_int *errcode_ret) {
  static auto *f =
      entry<decltype(&clCreateProgramWithBinary)>("clCreateProgramWithBinary");
  if (f)
    return f(context, num_devices, device_list, lengths, binaries,
             binary_status, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_PLATFORM_NOT_FOUND_KHR;
  return nullptr;
}

cl_program CL_API_CALL clCreateProgramWithIL(cl_context context, const void *il,
                                             size_t length,
                                             cl_int *errcode_ret) {
  static auto *f =
      entry<decltype(&clCreateProgramWithIL)>("clCreateProgramWithIL");
  if (f)
    return f(context, il, length, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_PLATFORM_NOT_FOUND_KHR;
  return nullptr;
}

void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue command_queue,
                                     cl_mem buffer, cl_bool blocking_map,
                                     cl_map_flags map_flags, size_t offset,
                                     size_t size,
                                     cl_uint num_events_in_wait_list,
                                     const cl_event *event_wait_list,
                                     cl_event *event, cl_int *errcode_ret) {
  static auto *f = entry<decltype(&clEnqueueMapBuffer)>("clEnqueueMapBuffer");
  if (f)
    return f(command_queue, buffer, blocking_map, map_flags, offset, size,
             num_events_in_wait_list, event_wait_list, event, errcode_ret);
  if (errcode_ret)
    *errcode_ret = CL_PLATFORM_NOT_FOUND_KHR;
  return nullptr;
}

cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue command_queue,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list,
                                               cl_event *event) {
  static auto *f = entry<decltype(&clEnqueueMarkerWithWaitList)>(
      "clEnqueueMarkerWithWaitList");
  return f ? f(command_queue, num_events_in_wait_list, event_wait_list, event)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue command_queue, cl_kernel kernel, cl_uint work_dim,
    const size_t *global_work_offset, const size_t *global_work_size,
    const size_t *local_work_size, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  static auto *f =
      entry<decltype(&clEnqueueNDRangeKernel)>("clEnqueueNDRangeKernel");
  return f ? f(command_queue, kernel, work_dim, global_work_offset,
               global_work_size, local_work_size, num_events_in_wait_list,
               event_wait_list, event)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue command_queue,
                                       cl_mem buffer, cl_bool blocking_read,
                                       size_t offset, size_t size, void *ptr,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event *event_wait_list,
                                       cl_event *event) {
  static auto *f = entry<decltype(&clEnqueueReadBuffer)>("clEnqueueReadBuffer");
  return f ? f(command_queue, buffer, blocking_read, offset, size, ptr,
               num_events_in_wait_list, event_wait_list, event)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue command_queue,
                                      cl_bool blocking_copy, void *dst_ptr,
                                      const void *src_ptr, size_t size,
                                      cl_uint num_events_in_wait_list,
                                      const cl_event *event_wait_list,
                                      cl_event *event) {
  static auto *f = entry<decltype(&clEnqueueSVMMemcpy)>("clEnqueueSVMMemcpy");
  return f ? f(command_queue, blocking_copy, dst_ptr, src_ptr, size,
               num_events_in_wait_list, event_wait_list, event)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue command_queue,
                                           cl_mem memobj, void *mapped_ptr,
                                           cl_uint num_events_in_wait_list,
                                           const cl_event *event_wait_list,
                                           cl_event *event) {
  static auto *f =
      entry<decltype(&clEnqueueUnmapMemObject)>("clEnqueueUnmapMemObject");
  return f ? f(command_queue, memobj, mapped_ptr, num_events_in_wait_list,
               event_wait_list, event)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue command_queue,
                                        cl_mem buffer, cl_bool blocking_write,
                                        size_t offset, size_t size,
                                        const void *ptr,
                                        cl_uint num_events_in_wait_list,
                                        const cl_event *event_wait_list,
                                        cl_event *event) {
  static auto *f =
      entry<decltype(&clEnqueueWriteBuffer)>("clEnqueueWriteBuffer");
  return f ? f(command_queue, buffer, blocking_write, offset, size, ptr,
               num_events_in_wait_list, event_wait_list, event)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clFinish(cl_command_queue command_queue) {
  static auto *f = entry<decltype(&clFinish)>("clFinish");
  return f ? f(command_queue) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clFlush(cl_command_queue command_queue) {
  static auto *f = entry<decltype(&clFlush)>("clFlush");
  return f ? f(command_queue) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id platform,
                                  cl_device_type device_type,
                                  cl_uint num_entries, cl_device_id *devices,
                                  cl_uint *num_devices) {
  static auto *f = entry<decltype(&clGetDeviceIDs)>("clGetDeviceIDs");
  return f ? f(platform, device_type, num_entries, devices, num_devices)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clGetDeviceInfo(cl_device_id device,
                                   cl_device_info param_name,
                                   size_t param_value_size, void *param_value,
                                   size_t *param_value_size_ret) {
  static auto *f = entry<decltype(&clGetDeviceInfo)>("clGetDeviceInfo");
  return f ? f(device, param_name, param_value_size, param_value,
               param_value_size_ret)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clGetEventInfo(cl_event event, cl_event_info param_name,
                                  size_t param_value_size, void *param_value,
                                  size_t *param_value_size_ret) {
  static auto *f = entry<decltype(&clGetEventInfo)>("clGetEventInfo");
  return f ? f(event, param_name, param_value_size, param_value,
               param_value_size_ret)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries,
                                    cl_platform_id *platforms,
                                    cl_uint *num_platforms) {
  static auto *f = entry<decltype(&clGetPlatformIDs)>("clGetPlatformIDs");
  return f ? f(num_entries, platforms, num_platforms)
           : (num_platforms ? *num_platforms = 0 : 0,
              CL_PLATFORM_NOT_FOUND_KHR);
}

cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                     cl_platform_info param_name,
                                     size_t param_value_size, void *param_value,
                                     size_t *param_value_size_ret) {
  static auto *f = entry<decltype(&clGetPlatformInfo)>("clGetPlatformInfo");
  return f ? f(platform, param_name, param_value_size, param_value,
               param_value_size_ret)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clGetProgramBuildInfo(
    cl_program program, cl_device_id device, cl_program_build_info param_name,
    size_t param_value_size, void *param_value, size_t *param_value_size_ret) {
  static auto *f =
      entry<decltype(&clGetProgramBuildInfo)>("clGetProgramBuildInfo");
  return f ? f(program, device, param_name, param_value_size, param_value,
               param_value_size_ret)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clGetProgramInfo(cl_program program,
                                    cl_program_info param_name,
                                    size_t param_value_size, void *param_value,
                                    size_t *param_value_size_ret) {
  static auto *f = entry<decltype(&clGetProgramInfo)>("clGetProgramInfo");
  return f ? f(program, param_name, param_value_size, param_value,
               param_value_size_ret)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue command_queue) {
  static auto *f =
      entry<decltype(&clReleaseCommandQueue)>("clReleaseCommandQueue");
  return f ? f(command_queue) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clReleaseContext(cl_context context) {
  static auto *f = entry<decltype(&clReleaseContext)>("clReleaseContext");
  return f ? f(context) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clReleaseEvent(cl_event event) {
  static auto *f = entry<decltype(&clReleaseEvent)>("clReleaseEvent");
  return f ? f(event) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clReleaseKernel(cl_kernel kernel) {
  static auto *f = entry<decltype(&clReleaseKernel)>("clReleaseKernel");
  return f ? f(kernel) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clReleaseMemObject(cl_mem memobj) {
  static auto *f = entry<decltype(&clReleaseMemObject)>("clReleaseMemObject");
  return f ? f(memobj) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clReleaseProgram(cl_program program) {
  static auto *f = entry<decltype(&clReleaseProgram)>("clReleaseProgram");
  return f ? f(program) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clRetainEvent(cl_event event) {
  static auto *f = entry<decltype(&clRetainEvent)>("clRetainEvent");
  return f ? f(event) : CL_PLATFORM_NOT_FOUND_KHR;
}

void *CL_API_CALL clSVMAlloc(cl_context context, cl_svm_mem_flags flags,
                             size_t size, cl_uint alignment) {
  static auto *f = entry<decltype(&clSVMAlloc)>("clSVMAlloc");
  return f ? f(context, flags, size, alignment) : nullptr;
}

void CL_API_CALL clSVMFree(cl_context context, void *svm_pointer) {
  static auto *f = entry<decltype(&clSVMFree)>("clSVMFree");
  if (f)
    f(context, svm_pointer);
}

cl_int CL_API_CALL clSetKernelArg(cl_kernel kernel, cl_uint arg_index,
                                  size_t arg_size, const void *arg_value) {
  static auto *f = entry<decltype(&clSetKernelArg)>("clSetKernelArg");
  return f ? f(kernel, arg_index, arg_size, arg_value)
           : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint arg_index,
                                            const void *arg_value) {
  static auto *f =
      entry<decltype(&clSetKernelArgSVMPointer)>("clSetKernelArgSVMPointer");
  return f ? f(kernel, arg_index, arg_value) : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL clWaitForEvents(cl_uint num_events,
                                   const cl_event *event_list) {
  static auto *f = entry<decltype(&clWaitForEvents)>("clWaitForEvents");
  return f ? f(num_events, event_list) : CL_PLATFORM_NOT_FOUND_KHR;
}

} // extern "C"
