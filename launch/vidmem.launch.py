"""Start the vidmem_ros ingest and query nodes on a ROS 2 install.

    ros2 launch vidmem_ros vidmem.launch.py camera:=/camera/color/image_raw odom:=/odom audio:=/mic/audio \
        store:=/data/vidmem/memory.db profile:=cpu namespace:=robot1
    (pose_source:=pose_with_covariance pose_with_covariance:=/amcl_pose to stamp map poses instead of odometry)
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import EnvironmentVariable, LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackageShare


def generate_launch_description() -> LaunchDescription:
    args = {
        "camera": ("/camera/image_raw", "Image topic; its /compressed sibling is subscribed too"),
        "odom": ("/odom", "nav_msgs/Odometry topic (pose_source odom, the default)"),
        "pose": ("/pose", "geometry_msgs/PoseStamped topic (pose_source pose)"),
        "pose_with_covariance": ("/amcl_pose", "PoseWithCovarianceStamped topic (pose_source pose_with_covariance)"),
        "pose_source": ("odom", "Which pose topic is stamped onto memory: odom, pose or pose_with_covariance"),
        "audio": ("/audio", "vidmem_ros/AudioChunk topic"),
        "store": ("~/.local/share/vidmem/memory.db", "SQLite file holding the memory"),
        "profile": ("cpu", "Model profile: cpu or gpu"),
        "config_file": ("", "YAML settings file; empty uses the profile's file"),
        "namespace": ("", "Namespace for both nodes"),
    }
    declared = [
        DeclareLaunchArgument(name, default_value=default, description=text) for name, (default, text) in args.items()
    ]
    cfg = {name: LaunchConfiguration(name) for name in args}
    params = [
        {
            "store.path": cfg["store"],
            "profile": cfg["profile"],
            "config_file": cfg["config_file"],
            "ingest.pose_source": cfg["pose_source"],
        }
    ]
    remaps = [
        ("image", cfg["camera"]),
        ("image/compressed", [cfg["camera"], "/compressed"]),
        ("odom", cfg["odom"]),
        ("pose", cfg["pose"]),
        ("pose_with_covariance", cfg["pose_with_covariance"]),
        ("audio", cfg["audio"]),
    ]
    share = FindPackageShare("vidmem_ros")
    # The package's Fast DDS profile (large shared-memory segments for raw frames) unless the robot has its own.
    ours = PathJoinSubstitution([share, "config", "fastdds.xml"])
    env = {"FASTRTPS_DEFAULT_PROFILES_FILE": EnvironmentVariable("FASTRTPS_DEFAULT_PROFILES_FILE", default_value=ours)}
    nodes = [
        Node(
            package="vidmem_ros",
            executable=exe,
            name=name,
            namespace=cfg["namespace"],
            parameters=params,
            remappings=remaps,
            additional_env=env,
            output="screen",
        )
        for exe, name in (("ingest_node", "vidmem_ingest"), ("query_node", "vidmem_query"))
    ]
    return LaunchDescription([*declared, *nodes])
