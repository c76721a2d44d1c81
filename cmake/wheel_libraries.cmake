# The CUDA libraries a torch wheel ships (NCCL, cuDNN, cuBLAS, ... in
# site-packages/nvidia/*/lib) are the ones its libtorch_cuda.so was built
# against, and the ones it loads at run time through its $ORIGIN rpath. The
# linker does not read that rpath: without being told, it resolves
# libtorch_cuda's symbols against whatever NCCL ldconfig knows (the system
# toolkit's), which links only while that one happens to be new enough.
# AMPBENCH_WHEEL_LIB_DIRS: the wheel's library folders, for the link test.
get_filename_component(AMPBENCH_SITE_PACKAGES "${Torch_DIR}/../../../.." ABSOLUTE)
file(GLOB AMPBENCH_WHEEL_LIB_DIRS LIST_DIRECTORIES true "${AMPBENCH_SITE_PACKAGES}/nvidia/*/lib")

function(ampbench_link_wheel_libraries target)
  foreach(dir IN LISTS AMPBENCH_WHEEL_LIB_DIRS)
    target_link_options(${target} INTERFACE "LINKER:-rpath-link,${dir}" "LINKER:-rpath,${dir}")
  endforeach()
endfunction()
