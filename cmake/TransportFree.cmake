# Layers that must never link gRPC, checked when CMake configures: the
# agent's core (a device may carry its bytes over its own network stack),
# the message conversions and the server's protocol core (DESIGN: the
# protocol logic knows nothing of gRPC; one thin adapter per side). A
# target that gains a gRPC dependency, however indirect, stops the
# configure step with the path that brought it in.

# Appends to `out_var` the first chain of in-project targets from `target`
# to a gRPC library, as "a -> b -> gRPC::grpc++", or nothing.
function(_ldp_grpc_path target chain out_var)
  get_target_property(aliased ${target} ALIASED_TARGET)
  if(aliased)
    set(target ${aliased})
  endif()
  get_target_property(type ${target} TYPE)
  set(deps "")
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  if(interface)
    list(APPEND deps ${interface})
  endif()
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(direct ${target} LINK_LIBRARIES)
    if(direct)
      list(APPEND deps ${direct})
    endif()
  endif()
  foreach(dep IN LISTS deps)
    # Generator expressions ($<LINK_ONLY:x>) wrap private static deps.
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
    if(dep MATCHES "^gRPC::" OR dep MATCHES "grpc\\+\\+")
      set(${out_var} "${chain} -> ${dep}" PARENT_SCOPE)
      return()
    endif()
    # Only the project's own targets are walked; imported ones (absl::,
    # protobuf::) end the chain unless they are gRPC itself.
    if(TARGET ${dep} AND dep MATCHES "^ldp" AND NOT dep IN_LIST _ldp_grpc_seen)
      list(APPEND _ldp_grpc_seen ${dep})
      set(_ldp_grpc_seen ${_ldp_grpc_seen} PARENT_SCOPE)
      _ldp_grpc_path(${dep} "${chain} -> ${dep}" found)
      if(found)
        set(${out_var} "${found}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
  set(${out_var} "" PARENT_SCOPE)
endfunction()

function(ldp_check_transport_free)
  foreach(target IN LISTS ARGN)
    set(_ldp_grpc_seen "")
    _ldp_grpc_path(${target} ${target} path)
    if(path)
      message(FATAL_ERROR "${target} must not link gRPC, but does: ${path}")
    endif()
  endforeach()
endfunction()

# Compiles `target` and every project library it links, however
# indirectly, as position-independent code, so that they can go into a
# shared library (libldp_agent.so).
function(ldp_position_independent target)
  get_target_property(aliased ${target} ALIASED_TARGET)
  if(aliased)
    set(target ${aliased})
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  else()
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    get_target_property(deps ${target} LINK_LIBRARIES)
  endif()
  foreach(dep IN LISTS deps)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" dep "${dep}")
    if(TARGET ${dep} AND dep MATCHES "^ldp")
      ldp_position_independent(${dep})
    endif()
  endforeach()
endfunction()
